/** The fuzz run as text: cases and outcomes per category, failures grouped by what went wrong, and the totals. */
import { mb } from '../reliability/process-stats.ts';
import type { CaseRecord, FuzzReport } from './run-fuzz.ts';
import { textTable } from '../report.ts';

/** Failures that went wrong the same way, with one example to replay. */
export interface FailureGroup {
  category: string;
  expected: string;
  got: string;
  problem: string;
  count: number;
  example: CaseRecord;
}

/** Sizes and ids in problems vary from case to case: a group is the same problem with any such number. */
const shape = (problem: string) => problem.replace(/\d{4,}/g, 'N');

export function groupFailures(failures: readonly CaseRecord[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const f of failures) {
    const problem = f.problems.map(shape).join('; ');
    const key = `${f.category}|${f.got}|${problem}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { category: f.category, expected: f.expected.join(' | '), got: f.got, problem, count: 1, example: f });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

function topOutcomes(outcomes: Record<string, number>, n = 4): string {
  const sorted = Object.entries(outcomes).sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, n).map(([k, v]) => `${k} x${v}`);
  return shown.join(', ') + (sorted.length > n ? `, +${sorted.length - n} more` : '');
}

export function formatFuzzReport(report: FuzzReport): string {
  const lines: string[] = [];
  lines.push(
    `fuzz: seed ${report.seed}, cases ${report.startIndex}..${report.startIndex + report.ran - 1} (${report.ran} of ${report.cases}) in ${(report.durationMs / 1000).toFixed(1)} s; ` +
      `limits: ${report.facts.maxMessageBytes} bytes/message, ${report.facts.maxPixels} pixels`,
  );
  lines.push('');
  const rows = [['category', 'cases', 'failed', 'ms/case', 'outcomes']];
  for (const [category, s] of Object.entries(report.byCategory)) {
    rows.push([category, String(s.cases), String(s.failed), (s.ms / s.cases).toFixed(1), topOutcomes(s.outcomes)]);
  }
  lines.push(textTable(rows));
  lines.push('');
  lines.push(
    `passed ${report.passed}, failed ${report.failed}; unanswered ${report.unanswered}, internal errors ${report.internalErrors}, ` +
      `invalid replies ${report.invalidReplies}, second answers ${report.extraReplies}, connection failures ${report.connectionFailures}`,
  );
  lines.push(
    `closes ${
      Object.entries(report.closes)
        .map(([k, v]) => `${k} x${v}`)
        .join(', ') || 'none'
    }; reconnects ${report.reconnects}; rate-limited resends ${report.rateLimitedRetries}`,
  );
  lines.push(
    `largest reply ${report.maxReplyBytes.toLocaleString('en-US')} bytes; longest error message ${report.maxErrorMessageChars.toLocaleString('en-US')} chars`,
  );
  lines.push(
    `gateway ${report.crashed ? 'STOPPED ANSWERING during the run' : 'answered throughout'}; alive at the end: ${report.aliveAtEnd ? 'yes' : 'NO'}`,
  );
  if (report.rssKb) {
    lines.push(
      `gateway RSS before ${mb(report.rssKb.before)}, after ${mb(report.rssKb.after)}, after ${report.rssKb.idleMs / 1000} s idle ${mb(report.rssKb.afterIdle)}`,
    );
  }
  const groups = groupFailures(report.failures);
  if (groups.length) {
    lines.push('');
    lines.push('failures (grouped; replay one with --start <index> --cases 1 and the same seed):');
    for (const g of groups) {
      lines.push(`  ${g.count} x ${g.category}, got ${g.got}: ${g.problem}`);
      lines.push(`      e.g. #${g.example.index} ${g.example.channel} "${g.example.name}"`);
    }
  }
  return lines.join('\n');
}

import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseWithoutExit } from '../../../client/parse-without-exit.ts';

class Help extends Error {}
class Usage extends Error {}
const errors = { helpShown: (text: string) => new Help(text), badArguments: (message: string) => new Usage(message) };

function program(): Command {
  return new Command('tool').version('1.2.3').requiredOption('--name <n>', 'a name');
}

describe('parseWithoutExit', () => {
  it('parses the options into the program', () => {
    const p = program();
    parseWithoutExit(p, ['--name', 'x'], { out: () => {}, err: () => {} }, errors);
    expect(p.opts()).toEqual({ name: 'x' });
  });

  it('turns --help and --version into the caller’s help error, with commander’s text written to out', () => {
    let out = '';
    expect(() => parseWithoutExit(program(), ['--help'], { out: (s) => (out += s), err: () => {} }, errors)).toThrow(Help);
    expect(out).toContain('--name <n>');
    expect(() => parseWithoutExit(program(), ['--version'], { out: () => {}, err: () => {} }, errors)).toThrow(Help);
  });

  it('turns a usage error into the caller’s error, without commander’s "error: " prefix, and never exits', () => {
    let err = '';
    const parse = () => parseWithoutExit(program(), ['--name', 'x', '--nope'], { out: () => {}, err: (s) => (err += s) }, errors);
    expect(parse).toThrow(Usage);
    expect(parse).toThrow(/^unknown option '--nope'/);
    expect(err).toBe('');
  });
});

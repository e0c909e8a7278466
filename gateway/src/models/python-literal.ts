/**
 * Python literals as Ultralytics writes them into an ONNX file's metadata (`str()` of a value):
 * `{0: 'person', 1: "dog's toy"}`, `[640, 640]`, `True`, `{'batch': 1, 'half': False}`. Only what
 * `ast.literal_eval` accepts for those: dicts, lists, tuples, strings (quotes, escapes, implicit
 * concatenation), ints, floats, True/False/None. No npm package parses Python literals; this is the
 * subset, small and total (every input either parses or throws a SyntaxError with the position).
 */

export type PyValue = string | number | boolean | null | PyValue[] | PyDict;
/** A dict, keys in their written order (keys are ints or strings in the metadata read here). */
export type PyDict = Map<PyValue, PyValue>;

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\n': '',
};

export function parsePythonLiteral(text: string): PyValue {
  let i = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at character ${i} of ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`);
  };
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) fail(`expected ${char}`);
    i++;
  };

  function string(): string {
    let out = '';
    // Adjacent literals concatenate ('a' 'b'), as Python's repr never writes but a hand edit might.
    do {
      const quote = text[i]!;
      i++;
      for (;;) {
        if (i >= text.length) fail('unterminated string');
        const c = text[i++]!;
        if (c === quote) break;
        if (c !== '\\') {
          out += c;
          continue;
        }
        const e = text[i++] ?? fail('unterminated escape');
        if (e in ESCAPES) out += ESCAPES[e];
        else if (e === 'x' || e === 'u' || e === 'U') {
          const digits = e === 'x' ? 2 : e === 'u' ? 4 : 8;
          const hex = text.slice(i, i + digits);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) fail(`bad \\${e} escape`);
          out += String.fromCodePoint(parseInt(hex, 16));
          i += digits;
        } else if (/[0-7]/.test(e)) {
          const octal = /^[0-7]{1,3}/.exec(text.slice(i - 1))![0];
          out += String.fromCharCode(parseInt(octal, 8));
          i += octal.length - 1;
        } else out += `\\${e}`; // Python keeps unknown escapes as written
      }
      skipSpace();
    } while (text[i] === "'" || text[i] === '"');
    return out;
  }

  function sequence(close: string): PyValue[] {
    const items: PyValue[] = [];
    skipSpace();
    while (text[i] !== close) {
      items.push(value());
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`expected , or ${close}`);
      skipSpace();
    }
    i++;
    return items;
  }

  function dict(): PyDict {
    const map: PyDict = new Map();
    skipSpace();
    while (text[i] !== '}') {
      const key = value();
      expect(':');
      map.set(key, value());
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] !== '}') fail('expected , or }');
      skipSpace();
    }
    i++;
    return map;
  }

  function value(): PyValue {
    skipSpace();
    const c = text[i];
    if (c === undefined) return fail('unexpected end');
    if (c === '{') {
      i++;
      return dict();
    }
    if (c === '[' || c === '(') {
      i++;
      return sequence(c === '[' ? ']' : ')');
    }
    if (c === "'" || c === '"') return string();
    const word = /^(True|False|None)\b/.exec(text.slice(i));
    if (word) {
      i += word[0].length;
      return word[0] === 'None' ? null : word[0] === 'True';
    }
    const number = /^[-+]?(\d[\d_]*\.?[\d_]*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|nan)/.exec(text.slice(i));
    if (number) {
      i += number[0].length;
      const parsed = Number(number[0].replace(/_/g, '').replace(/inf$/, 'Infinity').replace(/nan$/, 'NaN'));
      if (Number.isNaN(parsed) && !number[0].endsWith('nan')) fail('bad number');
      return parsed;
    }
    return fail(`unexpected ${JSON.stringify(c)}`);
  }

  const result = value();
  skipSpace();
  if (i < text.length) fail('unexpected text after the value');
  return result;
}

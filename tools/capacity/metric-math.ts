// The part of CloudWatch's metric math that scaling alarms use, so the simulator evaluates the
// alarm's own expression string on each datapoint's values (docs/capacity-planning.md cites the
// page): numbers, metric ids, + - * /, comparisons, AND and OR, parentheses and IF(c, a, b).
// As in CloudWatch, a comparison is 1 or 0 and IF takes its second argument where the condition
// is not 0; a division by zero is no value (NaN here), which IF can step around.
import { InputError } from './duration';

type Node =
  | { kind: 'number'; value: number }
  | { kind: 'id'; name: string }
  | { kind: 'negate'; operand: Node }
  | { kind: 'binary'; operator: string; left: Node; right: Node }
  | { kind: 'if'; condition: Node; then: Node; otherwise: Node };

export interface Expression {
  source: string;
  /** Metric ids the expression reads. */
  ids: string[];
  evaluate(values: Readonly<Record<string, number>>): number;
}

const tokenPattern = /\s*(\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|>=|<=|==|!=|&&|\|\||[-+*/(),<>])/y;

function tokenize(source: string): string[] {
  const tokens: string[] = [];
  tokenPattern.lastIndex = 0;
  while (tokenPattern.lastIndex < source.length) {
    if (/^\s*$/.test(source.slice(tokenPattern.lastIndex))) break;
    const at = tokenPattern.lastIndex;
    const match = tokenPattern.exec(source);
    if (!match) throw new InputError(`metric math "${source}": cannot read from "${source.slice(at)}"`);
    tokens.push(match[1]!);
  }
  return tokens;
}

// Lowest precedence first, as in CloudWatch's grammar.
const levels: string[][] = [
  ['OR', '||'],
  ['AND', '&&'],
  ['==', '!=', '<', '<=', '>', '>='],
  ['+', '-'],
  ['*', '/'],
];

function parse(source: string): Node {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const expect = (token: string) => {
    if (tokens[at] !== token) throw new InputError(`metric math "${source}": expected "${token}" at "${tokens.slice(at).join(' ') || 'the end'}"`);
    at++;
  };
  const level = (index: number): Node => {
    if (index === levels.length) return unary();
    let left = level(index + 1);
    while (levels[index]!.includes(peek()?.toUpperCase() ?? '')) {
      const operator = tokens[at++]!.toUpperCase();
      left = { kind: 'binary', operator, left, right: level(index + 1) };
    }
    return left;
  };
  const unary = (): Node => {
    if (peek() === '-') {
      at++;
      return { kind: 'negate', operand: unary() };
    }
    return primary();
  };
  const primary = (): Node => {
    const token = tokens[at++];
    if (token === undefined) throw new InputError(`metric math "${source}": ends too early`);
    if (token === '(') {
      const inner = level(0);
      expect(')');
      return inner;
    }
    if (/^\d/.test(token)) return { kind: 'number', value: Number(token) };
    if (token.toUpperCase() === 'IF' && peek() === '(') {
      at++;
      const condition = level(0);
      expect(',');
      const then = level(0);
      expect(',');
      const otherwise = level(0);
      expect(')');
      return { kind: 'if', condition, then, otherwise };
    }
    if (/^[a-z]/.test(token) && peek() !== '(') return { kind: 'id', name: token };
    throw new InputError(
      `metric math "${source}": "${token}" is not something this simulator evaluates (numbers, metric ids, + - * /, comparisons, AND, OR, IF)`,
    );
  };
  const tree = level(0);
  if (at !== tokens.length) throw new InputError(`metric math "${source}": unexpected "${tokens.slice(at).join(' ')}"`);
  return tree;
}

function ids(node: Node, into: Set<string>): Set<string> {
  if (node.kind === 'id') into.add(node.name);
  if (node.kind === 'negate') ids(node.operand, into);
  if (node.kind === 'binary') [node.left, node.right].forEach((n) => ids(n, into));
  if (node.kind === 'if') [node.condition, node.then, node.otherwise].forEach((n) => ids(n, into));
  return into;
}

function evaluate(node: Node, values: Readonly<Record<string, number>>): number {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'id': {
      const value = values[node.name];
      if (value === undefined) throw new InputError(`metric math: no value for "${node.name}"`);
      return value;
    }
    case 'negate':
      return -evaluate(node.operand, values);
    case 'if': {
      const condition = evaluate(node.condition, values);
      return evaluate(condition !== 0 && !Number.isNaN(condition) ? node.then : node.otherwise, values);
    }
    case 'binary': {
      const a = evaluate(node.left, values);
      const b = evaluate(node.right, values);
      switch (node.operator) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return b === 0 ? NaN : a / b;
        case '<':
          return Number(a < b);
        case '<=':
          return Number(a <= b);
        case '>':
          return Number(a > b);
        case '>=':
          return Number(a >= b);
        case '==':
          return Number(a === b);
        case '!=':
          return Number(a !== b);
        case 'AND':
        case '&&':
          return Number(a !== 0 && b !== 0);
        default:
          return Number(a !== 0 || b !== 0);
      }
    }
  }
}

export function parseExpression(source: string): Expression {
  const tree = parse(source);
  return { source, ids: [...ids(tree, new Set())], evaluate: (values) => evaluate(tree, values) };
}

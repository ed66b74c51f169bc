import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InputError } from './duration';
import { parseExpression } from './metric-math';

const shellShare = 'IF(ssr + shell + nginxShell > 0, 100 * (shell + nginxShell) / (ssr + shell + nginxShell), 0)';

describe('metric math, as the scaling alarms write it', () => {
  test("the shell share: Node's and Nginx's shells over every page, 0 when no page was asked for", () => {
    const e = parseExpression(shellShare);
    assert.deepEqual(e.ids.sort(), ['nginxShell', 'shell', 'ssr']);
    assert.equal(e.evaluate({ ssr: 750, shell: 50, nginxShell: 200 }), 25);
    assert.equal(e.evaluate({ ssr: 0, shell: 0, nginxShell: 0 }), 0);
    assert.equal(e.evaluate({ ssr: 0, shell: 0, nginxShell: 10 }), 100);
  });

  test('the guard reads 100 in any period with a shell, the CPU otherwise', () => {
    const e = parseExpression('IF(shell + nginxShell > 0, 100, cpu)');
    assert.equal(e.evaluate({ shell: 0, nginxShell: 0, cpu: 20 }), 20);
    assert.equal(e.evaluate({ shell: 0, nginxShell: 1, cpu: 20 }), 100);
  });

  test('precedence, unary minus, comparisons as 1 and 0, AND and OR', () => {
    assert.equal(parseExpression('1 + 2 * 3 - 4 / 2').evaluate({}), 5);
    assert.equal(parseExpression('(1 + 2) * -3').evaluate({}), -9);
    assert.equal(parseExpression('a >= 2 AND b < 1').evaluate({ a: 2, b: 0 }), 1);
    assert.equal(parseExpression('a > 2 || b == 0').evaluate({ a: 2, b: 0 }), 1);
    assert.equal(parseExpression('a != a').evaluate({ a: 3 }), 0);
  });

  test('a division by zero is no value, which IF steps around and a threshold never breaches', () => {
    assert.ok(Number.isNaN(parseExpression('a / b').evaluate({ a: 1, b: 0 })));
    assert.equal(parseExpression('IF(b > 0, a / b, 7)').evaluate({ a: 1, b: 0 }), 7);
  });

  test('what it cannot evaluate is a clear error, not a guess', () => {
    assert.throws(() => parseExpression('SUM(METRICS())'), InputError);
    assert.throws(() => parseExpression('IF(a, b)'), /expected ","/);
    assert.throws(() => parseExpression('a +'), /ends too early/);
    assert.throws(() => parseExpression('a $ b'), /cannot read/);
    assert.throws(() => parseExpression('a').evaluate({}), /no value for "a"/);
  });
});

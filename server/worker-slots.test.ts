import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlotTable } from './worker-slots';

test('a replacement worker gets the port slot its predecessor freed, not a new one', () => {
  const table = new SlotTable(2);
  assert.equal(table.claim(1), 0);
  assert.equal(table.claim(2), 1);
  assert.equal(table.claim(1), 0, 'asking twice keeps the same slot');
  assert.equal(table.claim(3), null, 'no third slot for two workers');
  table.release(1);
  assert.equal(table.claim(3), 0);
  table.release(2);
  table.release(2);
  assert.equal(table.claim(4), 1);
});

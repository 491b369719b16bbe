// The order a batch's writes go in (src/realm/write-order.ts): each kind's commands together wherever they stand,
// unless a command would pass one it conflicts with (a shared key, or one that cannot say what it touches).
import test from 'ava';
import { MAX_TOUCHED_KEYS, touchedBy, type CommandRegistry, type PendingCommand } from '../../src/realm/commands.js';
import type { RealmState } from '../../src/realm/state.js';
import { inRounds, writeOrder, type Placed } from '../../src/realm/write-order.js';

const send: Placed = { kind: 'send', touched: [] };
const flag = (...keys: string[]): Placed => ({ kind: 'flag', touched: keys });
const react = (...keys: string[]): Placed => ({ kind: 'react', touched: keys });
const opaque = (kind: string): Placed => ({ kind, touched: undefined });

test('commands that touch nothing in common go by kind, in order of first appearance, each kind in mailbox order', (t) => {
  t.deepEqual(writeOrder([send, flag('r:1:5'), react('m:6', 'r:2:6'), send, flag('r:3:5'), react('m:7', 'r:4:7'), send]), [
    [0, 3, 6],
    [1, 4],
    [2, 5],
  ]);
});

test('a command does not pass one of another kind it shares a key with: it starts a new group after it', (t) => {
  // The flag on 1:5 would have to pass the reaction on message 5 holding row 1:5.
  t.deepEqual(writeOrder([flag('r:1:5'), react('m:5', 'r:1:5'), flag('r:1:5'), flag('r:2:9')]), [[0], [1], [2, 3]]);
  // A later command of the same kind joins its group even when it shares keys with it (the bulk write keeps order).
  t.deepEqual(writeOrder([flag('r:1:5'), flag('r:1:5'), send]), [[0, 1], [2]]);
});

test('a command that cannot say what it touches is passed by none and passes none', (t) => {
  t.deepEqual(writeOrder([send, opaque('markRead'), send, flag('r:1:2'), opaque('markRead')]), [[0], [1], [2], [3], [4]]);
  // An opaque command of a kind joins its own kind's last group when nothing stands after it.
  t.deepEqual(writeOrder([opaque('send'), opaque('send'), flag('r:1:2'), opaque('send')]), [[0, 1], [2], [3]]);
  // Nor may a command that says pass an opaque one.
  t.deepEqual(writeOrder([send, opaque('other'), send]), [[0], [1], [2]]);
});

test('the result is a permutation of the batch in which no conflicting pair of different kinds changed order', (t) => {
  // A deterministic pseudo-random batch of 200 commands over few keys.
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const kinds = ['send', 'flag', 'react', 'other'];
  const batch: Placed[] = Array.from({ length: 200 }, () => {
    const kind = kinds[rnd(4)]!;
    if (kind === 'send') return send;
    if (kind === 'other' && rnd(3) === 0) return opaque(kind);
    return { kind, touched: [`k${rnd(12)}`] };
  });
  const groups = writeOrder(batch);
  const position = new Map<number, number>();
  groups.flat().forEach((index, at) => position.set(index, at));
  t.deepEqual([...position.keys()].sort((a, b) => a - b), batch.map((_, i) => i));
  for (const g of groups) t.true(g.every((i) => batch[i]!.kind === batch[g[0]!]!.kind));
  const conflict = (a: Placed, b: Placed) => !a.touched || !b.touched || a.touched.some((k) => b.touched!.includes(k));
  for (let i = 0; i < batch.length; i++) {
    for (let j = i + 1; j < batch.length; j++) {
      const [a, b] = [batch[i]!, batch[j]!];
      if (a.kind === b.kind || conflict(a, b)) t.true(position.get(i)! < position.get(j)!, `${i} stays before ${j}`);
    }
  }
  t.true(groups.length < 100, 'and it groups');
});

test('a bulk write in rounds: plans sharing a key with their round start the next, plans without keys go alone, outcomes in order', async (t) => {
  const rounds: string[][] = [];
  const keys: Record<string, string[] | null> = { a: ['1'], b: ['2'], c: ['1', '3'], d: ['4'], e: null, f: ['4'] };
  const out = await inRounds(Object.keys(keys), (p) => keys[p]!, async (round) => {
    rounds.push(round);
    return round.map((p) => p.toUpperCase());
  });
  t.deepEqual(rounds, [['a', 'b'], ['c', 'd'], ['e'], ['f']]);
  t.deepEqual(out, ['A', 'B', 'C', 'D', 'E', 'F']);
});

test('what a command touches is asked once and kept; more than MAX_TOUCHED_KEYS keys count as not saying', (t) => {
  let asked = 0;
  const keys = (n: number) => Array.from({ length: n }, (_, i) => `r:1:${i}`);
  const registry = {
    touching: { batchable: true, touches: (_s: unknown, n: number) => (asked++, keys(n)), check: () => null },
    alone: { touches: () => [], check: () => null },
  } as unknown as CommandRegistry;
  const state = {} as RealmState;
  const cmd = (kind: string, input: number): PendingCommand => ({ kind, input, resolve: () => {}, reject: () => {} });
  const small = cmd('touching', MAX_TOUCHED_KEYS);
  t.deepEqual(touchedBy(registry, state, small), keys(MAX_TOUCHED_KEYS));
  t.deepEqual(touchedBy(registry, state, small), keys(MAX_TOUCHED_KEYS));
  t.is(asked, 1, 'asked once');
  t.is(touchedBy(registry, state, cmd('touching', MAX_TOUCHED_KEYS + 1)), null);
  t.is(touchedBy(registry, state, cmd('alone', 0)), null, 'a command that is not batchable is never pipelined');
});

test('a batch of commands with many keys, none shared: one group per kind', (t) => {
  // 256 commands alternating two kinds, each with its own 1,000 keys and none shared: two groups.
  const batch: Placed[] = Array.from({ length: 256 }, (_, i) => ({ kind: i % 2 ? 'flag' : 'react', touched: Array.from({ length: 1000 }, (_, k) => `r:${i}:${k}`) }));
  const groups = writeOrder(batch);
  t.is(groups.length, 2);
  t.deepEqual(groups[0], batch.map((_, i) => i).filter((i) => i % 2 === 0));
});

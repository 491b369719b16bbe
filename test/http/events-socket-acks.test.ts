// An event socket's acknowledgement frames (ackOf, src/http/events-socket.ts): the usual `{"last_event_id":N}` is read
// from its bytes, and must agree with JSON for every frame; anything else goes through JSON.parse.
import test from 'ava';
import { ackOf } from '../../src/http/events-socket.js';

const ack = (text: string) => {
  const bytes = Buffer.from(text);
  return ackOf(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
};

test('the usual frames: compact, with spaces, the largest safe integer JSON writes in 15 digits', (t) => {
  t.is(ack('{"last_event_id":0}'), 0);
  t.is(ack('{"last_event_id":1234}'), 1234);
  t.is(ack('{"last_event_id": 1234 }'), 1234);
  t.is(ack('{"last_event_id":999999999999999}'), 999999999999999);
  t.is(ack(JSON.stringify({ last_event_id: 77 })), 77);
});

test('other JSON is parsed: -1, more digits, more members, whitespace elsewhere', (t) => {
  t.is(ack('{"last_event_id":-1}'), -1);
  t.is(ack('{"last_event_id":9007199254740991}'), 9007199254740991);
  t.is(ack('{"last_event_id":5,"x":1}'), 5);
  t.is(ack('{ "last_event_id": 5 }'), 5);
  t.is(ack('{"last_event_id":5}\n'), 5);
  t.is(ack('{"last_event_id":5e0}'), 5);
});

test('what is not an acknowledgement is undefined', (t) => {
  for (const text of ['', '{', '{"last_event_id":}', '{"last_event_id":012}', '{"last_event_id":1.5}', '{"last_event_id":-2}',
    '{"last_event_id":9007199254740992}', '{"last_event_id":"5"}', '{"last_event_id":5', '{"last_event_id":5}}', '[5]', 'null', '{"other":5}']) {
    t.is(ack(text), undefined, text);
  }
});

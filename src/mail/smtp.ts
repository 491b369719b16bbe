// A minimal SMTP client over node:net: EHLO, optional AUTH PLAIN, one message per connection, plain text UTF-8.
// smtp://[user:pass@]host[:port] (port 25 by default). No TLS: use a local relay for anything beyond this host.
import net from 'node:net';
import { randomUUID } from 'node:crypto';

export interface Message {
  from: string;
  to: string;
  subject: string;
  body: string;
}

export class SmtpError extends Error {}

/** Encodes a header value as an RFC 2047 encoded word when it is not plain ASCII. */
function headerValue(v: string): string {
  const clean = v.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(clean) ? clean : `=?UTF-8?B?${Buffer.from(clean, 'utf8').toString('base64')}?=`;
}

function address(a: string): string {
  if (/[\r\n<>]/.test(a)) throw new SmtpError(`invalid address ${JSON.stringify(a)}`);
  return a;
}

/** The message as sent after DATA: headers, CRLF line endings, leading dots doubled, no terminator. */
export function formatMessage(m: Message, host: string): string {
  const headers = [
    `From: ${address(m.from)}`,
    `To: ${address(m.to)}`,
    `Subject: ${headerValue(m.subject)}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${host}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = m.body.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** Reads SMTP replies (multi-line ones joined) from a socket, one at a time. */
class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private waiting: ((reply: { code: number; text: string }) => void) | null = null;
  private failed: Error | null = null;
  private failWaiter: ((e: Error) => void) | null = null;

  constructor(socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let i;
      while ((i = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, i).replace(/\r$/, '');
        this.buffer = this.buffer.slice(i + 1);
        this.lines.push(line);
        if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) this.flush();
      }
    });
    const fail = (e: Error) => {
      this.failed ??= e;
      this.failWaiter?.(this.failed);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new SmtpError('connection closed by the server')));
  }

  private pending: { code: number; text: string }[] = [];

  private flush(): void {
    const last = this.lines[this.lines.length - 1]!;
    const reply = { code: Number(last.slice(0, 3)), text: this.lines.map((l) => l.slice(4)).join('\n') };
    this.lines = [];
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      this.failWaiter = null;
      w(reply);
    } else this.pending.push(reply);
  }

  next(): Promise<{ code: number; text: string }> {
    const ready = this.pending.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiter = reject;
    });
  }
}

/** Delivers one message; rejects with SmtpError on any unexpected reply, a timeout, or a lost connection. */
export async function sendMail(url: string, m: Message, timeoutMs = 30_000): Promise<void> {
  const u = new URL(url);
  if (u.protocol !== 'smtp:') throw new SmtpError(`unsupported mail URL scheme ${u.protocol} (only smtp:)`);
  const port = u.port ? Number(u.port) : 25;
  const socket = net.createConnection({ host: u.hostname, port });
  socket.setTimeout(timeoutMs, () => socket.destroy(new SmtpError('SMTP timeout')));
  const replies = new ReplyReader(socket);
  const expect = async (ok: number[], what: string) => {
    const r = await replies.next();
    if (!ok.includes(r.code)) throw new SmtpError(`${what}: ${r.code} ${r.text}`);
    return r;
  };
  const send = (line: string) => socket.write(line + '\r\n');
  try {
    await expect([220], 'greeting');
    send('EHLO palaver');
    await expect([250], 'EHLO');
    if (u.username) {
      const token = Buffer.from(`\u0000${decodeURIComponent(u.username)}\u0000${decodeURIComponent(u.password)}`).toString('base64');
      send(`AUTH PLAIN ${token}`);
      await expect([235], 'AUTH');
    }
    send(`MAIL FROM:<${address(m.from)}>`);
    await expect([250], 'MAIL FROM');
    send(`RCPT TO:<${address(m.to)}>`);
    await expect([250, 251], 'RCPT TO');
    send('DATA');
    await expect([354], 'DATA');
    socket.write(formatMessage(m, u.hostname) + '\r\n.\r\n');
    await expect([250], 'message');
    send('QUIT');
    await expect([221], 'QUIT').catch(() => undefined);
  } finally {
    socket.end();
    socket.destroy();
  }
}

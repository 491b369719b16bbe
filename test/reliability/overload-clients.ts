// Slow HTTP clients for the overload tests, as real peers: a small python3 program per client, because Node's net
// cannot set SO_RCVBUF and over loopback the kernel's default receive buffer (autotuned up to tcp_rmem's maximum)
// would absorb a large reply whole. With a small receive buffer set before connect, a client that does not read
// really leaves the reply waiting in the server.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const PROGRAM = String.raw`
import json, select, socket, sys, time
host, port, path, auth, rcvbuf, mode, pause, chunk = sys.argv[1:9]
pause, chunk = float(pause), int(chunk)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(rcvbuf))
s.connect((host, int(port)))
s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: %s\r\n\r\n" % (path, auth)).encode())
s.settimeout(120)
def out(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
buf = b""
while b"\r\n\r\n" not in buf:
    c = s.recv(4096)
    if not c:
        out({"event": "head", "status": 0, "headers": {}, "text": ""}); out({"event": "end", "body": 0, "contentLength": -1, "ended": "eof"}); sys.exit(0)
    buf += c
head, _, rest = buf.partition(b"\r\n\r\n")
lines = head.decode("latin1").split("\r\n")
headers = {}
for l in lines[1:]:
    k, _, v = l.partition(":")
    headers[k.strip().lower()] = v.strip()
clen = int(headers.get("content-length", "-1"))
body = len(rest)
# A short reply (an error envelope) is read whole and shown.
text = ""
if 0 <= clen <= 65536:
    while body < clen:
        c = s.recv(65536)
        if not c: break
        rest += c; body += len(c)
    text = rest.decode("utf-8", "replace")
out({"event": "head", "status": int(lines[0].split()[1]), "headers": headers, "text": text})
ended = "complete"
go = False
try:
    while clen < 0 or body < clen:
        if not go:
            if mode == "stall":
                sys.stdin.readline(); go = True
            else:
                r, _, _ = select.select([sys.stdin], [], [], pause)
                if r:
                    sys.stdin.readline(); go = True
                else:
                    c = s.recv(chunk)
                    if not c: ended = "eof"; break
                    body += len(c)
                    continue
        c = s.recv(1 << 20)
        if not c: ended = "eof"; break
        body += len(c)
except ConnectionResetError:
    ended = "reset"
except socket.timeout:
    ended = "timeout"
out({"event": "end", "body": body, "contentLength": clen, "ended": ended})
`;

export interface Head {
  status: number;
  headers: Record<string, string>;
  /** The body of a short reply (an error envelope), else ''. */
  text: string;
}

export interface End {
  /** Body bytes received. */
  body: number;
  contentLength: number;
  /** complete: the whole body arrived; eof / reset: the server ended the connection before. */
  ended: 'complete' | 'eof' | 'reset' | 'timeout';
}

export interface SlowClient {
  /** The status line and headers (the client has read these and nothing more of a large body). */
  head: Promise<Head>;
  /** Stop being slow: read the rest of the reply as fast as it comes, to its end or the connection's. */
  go(): void;
  end: Promise<End>;
  kill(): void;
}

export interface SlowClientOptions {
  port: number;
  path: string;
  authorization: string;
  /** SO_RCVBUF, set before connect (the kernel doubles it). */
  receiveBuffer?: number;
  /** stall: read nothing after the headers until go(); trickle: read `chunk` bytes every `pauseSeconds`. */
  mode: 'stall' | 'trickle';
  pauseSeconds?: number;
  chunk?: number;
}

export function slowClient(o: SlowClientOptions): SlowClient {
  const child = spawn(
    'python3',
    ['-c', PROGRAM, '127.0.0.1', String(o.port), o.path, o.authorization, String(o.receiveBuffer ?? 4096), o.mode, String(o.pauseSeconds ?? 0.5), String(o.chunk ?? 4096)],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  // go() to a client that already finished (its reply was short) writes to a closed pipe.
  child.stdin!.on('error', () => undefined);
  const lines = createInterface({ input: child.stdout! });
  let onHead!: (h: Head) => void;
  let onEnd!: (e: End) => void;
  let fail!: (e: Error) => void;
  const head = new Promise<Head>((resolve, reject) => {
    onHead = resolve;
    fail = reject;
  });
  const end = new Promise<End>((resolve, reject) => {
    onEnd = resolve;
    child.on('exit', (code) => {
      const e = new Error(`slow client exited (${code}) before its reply ended: ${err}`);
      fail(e);
      reject(e);
    });
  });
  // Observed by the caller when it matters; never an unhandled rejection of its own.
  head.catch(() => undefined);
  end.catch(() => undefined);
  lines.on('line', (l) => {
    const m = JSON.parse(l);
    if (m.event === 'head') onHead(m);
    else if (m.event === 'end') onEnd(m);
  });
  return {
    head,
    end,
    go: () => {
      if (child.exitCode === null) child.stdin!.write('go\n');
    },
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

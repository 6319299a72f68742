// A cheap HTTP/1.1 load generator for the benchmarks: requests are encoded to bytes beforehand,
// each keep-alive connection carries one request at a time, and a response is read only as far as
// its status line and Content-Length. fetch() costs the generator far more per request, and on a
// two-core machine the generator shares the cores with the node it measures.
import type { Socket } from "bun";

export function encodeRequest(host: string, method: string, path: string, headers: Record<string, string>, body: string): Uint8Array {
  const bytes = Buffer.from(body);
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `content-length: ${bytes.length}`, "", ""];
  return Buffer.concat([Buffer.from(lines.join("\r\n")), bytes]);
}

interface Conn {
  socket: Socket<undefined>;
  buffer: Buffer;
  waiting: ((status: number) => void) | null;
  closed: boolean;
}

/**
 * `size` keep-alive connections to host:port; `send` resolves with the response's status, or 0 when
 * the connection closed before its answer. A connection the server closes (its idle timeout, an
 * error) is replaced by a new one: a closed connection left in the pool took the requests given to
 * it, which then waited forever, and a run whose connections all closed hung with the node idle.
 */
export async function rawClient(hostname: string, port: number, size: number) {
  const idle: Conn[] = [];
  const queue: Array<{ request: Uint8Array; resolve: (status: number) => void }> = [];
  let ended = false;
  const conns: Conn[] = [];
  const dispatch = (conn: Conn) => {
    if (conn.closed) return;
    const next = queue.shift();
    if (!next) {
      idle.push(conn);
      return;
    }
    conn.waiting = next.resolve;
    conn.socket.write(next.request);
  };
  const open = async (): Promise<Conn> => {
    const conn: Conn = { socket: null as unknown as Socket<undefined>, buffer: Buffer.alloc(0), waiting: null, closed: false };
    conn.socket = await Bun.connect({
      hostname,
      port,
      socket: {
        data(_socket, chunk) {
          conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, chunk]) : Buffer.from(chunk);
          for (;;) {
            const end = conn.buffer.indexOf("\r\n\r\n");
            if (end < 0) return;
            const head = conn.buffer.subarray(0, end).toString("latin1");
            const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
            if (conn.buffer.length < end + 4 + length) return;
            conn.buffer = conn.buffer.subarray(end + 4 + length);
            const status = Number(head.slice(9, 12));
            const done = conn.waiting;
            conn.waiting = null;
            done?.(status);
            dispatch(conn);
          }
        },
        close() {
          conn.closed = true;
          const at = idle.indexOf(conn);
          if (at >= 0) idle.splice(at, 1);
          conn.waiting?.(0);
          conn.waiting = null;
          if (ended) return;
          const index = conns.indexOf(conn);
          void open().then(
            (fresh) => {
              if (index >= 0) conns[index] = fresh;
              if (ended) return void fresh.socket.end();
              dispatch(fresh);
            },
            () => {},
          );
        },
      },
    });
    return conn;
  };
  conns.push(...(await Promise.all(Array.from({ length: size }, open))));
  idle.push(...conns);
  return {
    send(request: Uint8Array): Promise<number> {
      return new Promise((resolve) => {
        queue.push({ request, resolve });
        const conn = idle.pop();
        if (conn) dispatch(conn);
      });
    },
    close() {
      ended = true;
      for (const c of conns) c.socket.end();
    },
  };
}

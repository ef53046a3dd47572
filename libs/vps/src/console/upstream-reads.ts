import type { OnReadOpts, Socket } from 'node:net';
import { WebSocket } from 'ws';

/** Bytes sent to the client and not yet written to its socket beyond which reading from upstream pauses. */
const HIGH_WATER = 4 << 20;
const LOW_WATER = 1 << 20;
/** Upstream reads land in the free part of a slab this big; a slab with less than MIN_READ free is replaced. */
const SLAB_BYTES = 256 << 10;
const MIN_READ = 64 << 10;
/** Slabs whose bytes were all written, kept for the process's next reads (8 MiB). */
const SPARE_SLABS = 32;

class Slab {
  private static readonly spare: Slab[] = [];
  readonly bytes = Buffer.allocUnsafeSlow(SLAB_BYTES);
  used = 0;
  /** The reader filling it, plus every message in it not yet written to the client's socket. */
  holds = 1;

  static take(): Slab {
    return Slab.spare.pop() ?? new Slab();
  }

  release(): void {
    if (--this.holds > 0 || Slab.spare.length >= SPARE_SLABS) return;
    this.used = 0;
    this.holds = 1;
    Slab.spare.push(this);
  }
}

/**
 * The upstream (VNC) side of a console, read without a new buffer per read: each read lands in a
 * reused slab, right after the previous one, and what one turn of the event loop read goes to the
 * client as one binary message, a view of the slab (no copy, no concat). A slab goes back to the
 * pool once every message in it was written to the client's socket.
 *
 * Why (docs/performance.md): Node's default reads allocate 64 KiB per read, and the
 * garbage collector tracks that memory; in the API's process, with its large heap, collecting it
 * cost more than copying the bytes, and the proxy used several times websockify's CPU per MB.
 *
 * Pass `onread` to net.connect and pause the socket until `pipeTo`: nothing is read before then.
 */
export class UpstreamReads {
  readonly onread: OnReadOpts = { buffer: () => this.nextBuffer(), callback: (read) => this.received(read) };
  private slab = Slab.take();
  /** Where the bytes not yet sent to the client start in the current slab. */
  private start = 0;
  private queued = 0;
  private flushing = false;
  private closed = false;
  private ws: WebSocket | null = null;
  private upstream: Socket | null = null;
  private count: (toClient: number) => void = () => undefined;

  /** Sends what upstream sends to `ws` (with backpressure), from now until the upstream socket closes. */
  pipeTo(ws: WebSocket, upstream: Socket, count: (toClient: number) => void): void {
    this.ws = ws;
    this.upstream = upstream;
    this.count = count;
    upstream.once('close', () => {
      this.send();
      this.closed = true;
      this.slab.release();
    });
    upstream.resume();
  }

  private nextBuffer(): Buffer {
    if (SLAB_BYTES - this.slab.used < MIN_READ) {
      this.send();
      this.slab.release();
      this.slab = Slab.take();
      this.start = 0;
    }
    return this.slab.bytes.subarray(this.slab.used);
  }

  /** True: keep reading (backpressure pauses the socket instead). */
  private received(read: number): boolean {
    this.slab.used += read;
    this.count(read);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(this.flush);
    }
    return true;
  }

  private readonly flush = (): void => {
    this.flushing = false;
    this.send();
  };

  private send(): void {
    const { slab, ws, upstream } = this;
    if (this.closed || slab.used === this.start || !ws || !upstream) return;
    const data = slab.bytes.subarray(this.start, slab.used);
    this.start = slab.used;
    if (ws.readyState !== WebSocket.OPEN) return;
    slab.holds++;
    this.queued += data.length;
    ws.send(data, { binary: true, compress: false }, () => {
      slab.release();
      this.queued -= data.length;
      if (this.queued < LOW_WATER && upstream.isPaused()) upstream.resume();
    });
    if (this.queued > HIGH_WATER) upstream.pause();
  }
}

import type { Duplex } from 'node:stream';

/** Reads exact byte counts from a socket: `await reader.read(n)`; rejects once the socket ends. */
export class SocketReader {
  private buffered: Buffer = Buffer.alloc(0);
  private wanted: { size: number; resolve: (chunk: Buffer) => void; reject: (err: Error) => void } | null = null;
  private ended: Error | null = null;

  constructor(socket: Duplex) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      this.deliver();
    });
    const end = () => {
      this.ended ??= new Error('connection closed');
      this.wanted?.reject(this.ended);
      this.wanted = null;
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  read(size: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.ended && this.buffered.length < size) return reject(this.ended);
      this.wanted = { size, resolve, reject };
      this.deliver();
    });
  }

  private deliver(): void {
    if (!this.wanted || this.buffered.length < this.wanted.size) return;
    const { size, resolve } = this.wanted;
    this.wanted = null;
    const chunk = this.buffered.subarray(0, size);
    this.buffered = this.buffered.subarray(size);
    resolve(chunk);
  }
}

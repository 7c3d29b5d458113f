import { randomFillSync } from 'node:crypto';

/**
 * Random bytes from the CSPRNG drawn a few kilobytes at a time and handed out in small pieces:
 * one call into it per id or per IV cost more than the rest of making one (a money request
 * wants several). Node's own randomUUID() buffers the same way. Each byte is handed out once.
 */
export class RandomPool {
  private readonly pool: Buffer;
  private next: number;

  constructor(size = 4096) {
    this.pool = Buffer.alloc(size);
    this.next = size;
  }

  /** `length` fresh random bytes, a copy of the pool's (the caller may keep them). */
  bytes(length: number): Buffer {
    return Buffer.from(this.view(length));
  }

  /** `length` fresh random bytes as a view of the pool: to read at once, before the next call. */
  view(length: number): Uint8Array {
    if (length > this.pool.length) return randomFillSync(Buffer.alloc(length));
    if (this.next + length > this.pool.length) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    const start = this.next;
    this.next += length;
    return this.pool.subarray(start, start + length);
  }
}

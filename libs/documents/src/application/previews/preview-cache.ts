import { Injectable } from '@nestjs/common';

interface Entry {
  body: Buffer;
  expiresAt: number;
}

/**
 * A short-lived in-process cache of rendered previews and thumbnails, keyed by a digest of
 * everything the render depends on (tenant, template document, document type, format). Renders
 * are deterministic, so a hit returns the very bytes a fresh render would. Bounded in entries
 * and bytes; the least recently used entry goes first.
 */
@Injectable()
export class PreviewCache {
  static readonly TTL_MS = 60_000;
  static readonly MAX_ENTRIES = 200;
  static readonly MAX_BYTES = 32 * 1024 * 1024;

  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  /** `now` measures the entries' age (a duration): the monotonic clock by default, never the wall clock. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  get(key: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.bytes -= entry.body.length;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.body;
  }

  set(key: string, body: Buffer): void {
    if (body.length > PreviewCache.MAX_BYTES) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.body.length;
    }
    this.entries.set(key, { body, expiresAt: this.now() + PreviewCache.TTL_MS });
    this.bytes += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= PreviewCache.MAX_ENTRIES && this.bytes <= PreviewCache.MAX_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= entry.body.length;
    }
  }
}

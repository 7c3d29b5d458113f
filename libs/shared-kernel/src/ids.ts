import { v7 as uuidv7, validate, version } from 'uuid';
import { RandomPool } from './random-pool';

/** The random part of the ids, drawn for 128 ids at a time. */
const randomPool = new RandomPool(16 * 128);

/** uuid's v7 state, kept here since the random bytes are given: the timestamp and a counter within it. */
const clock = { msecs: -Infinity, seq: 0 };

/**
 * Time-ordered ids (UUIDv7) keep primary-key indexes append-mostly. Monotonic within the process
 * as uuid's v7() makes them (RFC 9562 method 1): a new millisecond starts the 31-bit counter at a
 * random value, a repeated (or earlier) one counts up, and a wrapped counter moves the timestamp on.
 */
export function newId(): string {
  const random = randomPool.view(16);
  // eslint-disable-next-line no-restricted-properties -- the host clock uuid's v7() read itself: an id's time prefix, not business time
  const now = Date.now();
  if (now > clock.msecs) {
    clock.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
    clock.msecs = now;
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs += 1;
  }
  return uuidv7({ random, msecs: clock.msecs, seq: clock.seq });
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}

export function isUuidV7(value: unknown): value is string {
  return isUuid(value) && version(value) === 7;
}

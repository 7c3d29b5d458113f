/**
 * When a failed delivery is tried again (api-contract.md §4): about 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h and 10 h after the attempts before; a delivery whose eighth attempt fails has failed.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint whose deliveries have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600_000;

/** The delay before the next attempt after `attempts` failed ones, or null when none is left. */
export function retryDelayAfter(attempts: number): number | null {
  return attempts >= 1 && attempts <= RETRY_DELAYS_MS.length ? RETRY_DELAYS_MS[attempts - 1] : null;
}

/** The delivery timeout: a 2xx must arrive within it. */
export const DELIVERY_TIMEOUT_MS = 10_000;

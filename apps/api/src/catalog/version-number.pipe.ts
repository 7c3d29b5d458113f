import { PipeTransform } from '@nestjs/common';
import { invalidParameter } from '@app/shared-kernel';

/** The largest number a version column (PostgreSQL integer) holds. */
const MAX_VERSION = 2_147_483_647;

/**
 * A path's version number. Typed as an intersection so that its reflected type is Object: the
 * global ValidationPipe then leaves the raw text alone instead of coercing "1e2" or "0x10" into
 * a number before this pipe sees it.
 */
export type VersionNumber = number & { readonly versionNumber?: true };

/**
 * A version number in a path: a positive integer written in plain digits, at most 2^31 − 1, else
 * 400 VALIDATION_ERROR (a larger one could not be looked up: the database would refuse it).
 */
export class VersionNumberPipe implements PipeTransform<unknown, VersionNumber> {
  transform(value: unknown): VersionNumber {
    const version = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(version) || version < 1 || version > MAX_VERSION) {
      throw invalidParameter('version', 'INVALID_VALUE', 'version must be a positive integer.');
    }
    return version;
  }
}

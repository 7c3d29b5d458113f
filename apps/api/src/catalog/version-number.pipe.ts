import { PipeTransform } from '@nestjs/common';
import { invalidParameter } from '@app/shared-kernel';

/** The largest number a version column (PostgreSQL integer) holds. */
const MAX_VERSION = 2_147_483_647;

/**
 * A path's version number. The global ValidationPipe leaves path parameters as text (see
 * ApiValidationPipe.transformPrimitive), so this pipe sees "1e2" or "0x10" as written, whatever
 * type a compiler reflects for this alias (tsc: Number, swc: Object).
 */
export type VersionNumber = number & { readonly versionNumber?: true };

/**
 * A version number in a path: a positive integer written in plain digits, at most 2^31 − 1, else
 * 400 VALIDATION_ERROR (a larger one could not be looked up: the database would refuse it).
 */
export class VersionNumberPipe implements PipeTransform<unknown, VersionNumber> {
  /** The path parameter as the OpenAPI document publishes it (route-docs reads it from the route's pipes). */
  static readonly openApiSchema = { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_VERSION };

  transform(value: unknown): VersionNumber {
    const version = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(version) || version < 1 || version > MAX_VERSION) {
      throw invalidParameter('version', 'INVALID_VALUE', 'version must be a positive integer.');
    }
    return version;
  }
}

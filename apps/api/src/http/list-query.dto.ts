import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, parseLimit } from '@app/shared-kernel';
import { Allow, IsOptional, IsString, MaxLength } from 'class-validator';
import { ApiPropertyOptional } from './api-property';

/** `limit` and `cursor` of every keyset-paginated list (contract §1). */
export class ListQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    // No maximum: a larger value is clamped, not refused (contract §1), so the schema admits it.
    minimum: 1,
    default: DEFAULT_PAGE_LIMIT,
    example: DEFAULT_PAGE_LIMIT,
    description:
      `Page size, default ${DEFAULT_PAGE_LIMIT}. A larger value than ${MAX_PAGE_LIMIT} is clamped to ${MAX_PAGE_LIMIT} ` +
      '(accepted, not refused); a value that is not a positive integer falls back to the default.',
  })
  @Allow()
  limit?: unknown;

  // No example: a cursor is signed for one list, its filters and this server's secret, so any
  // example would be refused (400 INVALID_CURSOR) when an explorer sends it.
  @ApiPropertyOptional({ type: String, description: 'The `pagination.cursor` of the previous page; omit for the first page.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  cursor?: string;

  get pageLimit(): number {
    return parseLimit(this.limit);
  }
}

export class PaginationDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example:
      'v1.WyIyMDI2LTExLTIyVDEwOjE1OjMwLjAwMFoiLCIwMTkzYTVjMi03ZjRlLTdiMWEtOWMxZC0yZjBlNGI1YTZkMDciXQ.CmjKE3kUxvP9yqkn7KhqPg',
    description: 'Null exactly when has_more is false.',
  })
  cursor!: string | null;
  @ApiPropertyOptional({ example: true }) has_more!: boolean;
}

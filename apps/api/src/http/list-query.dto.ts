import { ApiPropertyOptional } from '@nestjs/swagger';
import { parseLimit } from '@app/shared-kernel';
import { Allow, IsOptional, IsString, MaxLength } from 'class-validator';

/** `limit` and `cursor` of every keyset-paginated list (contract §1). */
export class ListQueryDto {
  @ApiPropertyOptional({
    description: 'Page size: default 50, max 200 (larger values are clamped, invalid ones ignored).',
    example: 50,
  })
  @Allow()
  limit?: unknown;

  @ApiPropertyOptional({
    example:
      'v1.WyIyMDI2LTExLTIyVDEwOjE1OjMwLjAwMFoiLCIwMTkzYTVjMi03ZjRlLTdiMWEtOWMxZC0yZjBlNGI1YTZkMDciXQ.CmjKE3kUxvP9yqkn7KhqPg',
    description: 'The `pagination.cursor` of the previous page.',
  })
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

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

  @ApiPropertyOptional({ description: 'The `pagination.cursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  cursor?: string;

  get pageLimit(): number {
    return parseLimit(this.limit);
  }
}

export class PaginationDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Null exactly when has_more is false.' }) cursor!:
    string | null;
  @ApiPropertyOptional({ example: false }) has_more!: boolean;
}

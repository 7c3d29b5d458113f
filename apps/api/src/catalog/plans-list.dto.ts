import { MAX_IN_VALUES, MAX_SEARCH_LENGTH, PLAN_SORT_KEYS, PLAN_STATUSES, RANGE_OPS, TIMESTAMP_FIELDS } from '@app/catalog';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { ParsesOwnQuery } from '../http/own-query';
import { PlanDto } from './plans.dto';

const WHEN = '2026-11-01T00:00:00Z';

/**
 * The plan list's query parameters, for the OpenAPI document. The route reads them with the list's
 * own grammar (model §6, `libs/catalog/src/domain/plan-filters.ts`): an unknown parameter, field or
 * operator, a repeated filter or a bad value is 400 INVALID_FILTER naming the parameter. The range
 * filters (`created_at.gte`, `version.lt`, …) are declared below the class, one per operator.
 */
@ParsesOwnQuery()
export class ListPlansQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: MAX_SEARCH_LENGTH,
    example: 'growth',
    description:
      'Case-insensitive substring of name or external_id (trimmed). Without sort, ranked: exact match, then prefix, then substring; ties newest first.',
  })
  search?: string;

  @ApiPropertyOptional({
    type: String,
    pattern: `^(${PLAN_SORT_KEYS.join('|')})(:(asc|desc))?$`,
    example: 'name:asc',
    description:
      'One key with an optional direction (default created_at:desc; a key alone sorts ascending, created_at descending). name sorts case-insensitively; status draft < scheduled < active < archived; description by its first 500 characters (byte order), plans without one last both ways; ties by id. version is not sortable. Any sort disables search ranking. Else 400 INVALID_SORT.',
  })
  sort?: string;

  @ApiPropertyOptional({
    type: String,
    enum: ['status'],
    example: 'status',
    description:
      'Adds counts.status {draft, scheduled, active, archived} over every filter but status. Else 400 VALIDATION_ERROR.',
  })
  counts?: string;

  @ApiPropertyOptional({ type: String, example: 'draft,active', description: `Comma list of ${PLAN_STATUSES.join(', ')}.` })
  status?: string;

  @ApiPropertyOptional({ type: [String], example: ['smb'], description: 'Repeatable: plans carrying every given tag.' })
  tag?: string[];

  @ApiPropertyOptional({ type: Boolean, example: true, description: 'true: plans with a release queued; false: without.' })
  has_scheduled_version?: boolean;

  @ApiPropertyOptional({
    type: String,
    example: 'Growth',
    description:
      'Exact, case-sensitive; a comma list means any of them (up to 100). To match a name holding a comma, use name.eq.',
  })
  name?: string;

  @ApiPropertyOptional({
    name: 'name.eq',
    type: String,
    example: 'Growth, EU',
    description: 'Exact, case-sensitive; never split on commas.',
  })
  name_eq?: string;

  @ApiPropertyOptional({
    name: 'name.in',
    type: String,
    example: 'Growth,Scale',
    description: `Comma list, exact (up to ${MAX_IN_VALUES}).`,
  })
  name_in?: string;

  @ApiPropertyOptional({
    name: 'name.contains',
    type: String,
    example: 'grow',
    description: 'Case-insensitive substring (% and _ match literally).',
  })
  name_contains?: string;

  @ApiPropertyOptional({
    type: String,
    example: 'crm-plan-042',
    description: 'Exact; a comma list means any of them (up to 100).',
  })
  external_id?: string;

  @ApiPropertyOptional({
    name: 'external_id.eq',
    type: String,
    example: 'crm-plan-042',
    description: 'Exact; never split on commas.',
  })
  external_id_eq?: string;

  @ApiPropertyOptional({
    name: 'external_id.in',
    type: String,
    example: 'crm-plan-042,crm-plan-043',
    description: `Comma list, exact (up to ${MAX_IN_VALUES}).`,
  })
  external_id_in?: string;
}

/** One documented query parameter per range filter and operator: `created_at`, `created_at.gt`, …, `version.lte`. */
for (const field of [...TIMESTAMP_FIELDS, 'version'] as const) {
  for (const op of [undefined, ...RANGE_OPS]) {
    const name = op ? `${field}.${op}` : field;
    const timestamp = field !== 'version';
    ApiPropertyOptional({
      name,
      type: timestamp ? String : 'integer',
      ...(timestamp ? { format: 'date-time', example: WHEN } : { minimum: 1, example: 2 }),
      description: `${field} ${op ?? 'eq'} the value${timestamp ? ' (RFC 3339)' : ' (the live version’s number)'}.${op ? '' : ' Same as .eq.'}`,
    })(ListPlansQueryDto.prototype, name.replace('.', '_'));
  }
}

class PlanStatusCountsDto {
  @ApiProperty({ example: 12 }) draft!: number;
  @ApiProperty({ example: 0 }) scheduled!: number;
  @ApiProperty({ example: 40 }) active!: number;
  @ApiProperty({ example: 3 }) archived!: number;
}

class PlanListCountsDto {
  @ApiProperty({ type: PlanStatusCountsDto }) status!: PlanStatusCountsDto;
}

export class PlanListDto {
  @ApiProperty({ type: [PlanDto] }) data!: PlanDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
  @ApiPropertyOptional({ type: PlanListCountsDto, description: 'With counts=status.' }) counts?: PlanListCountsDto;
}

/**
 * custom_fields as an OpenAPI deepObject (`custom_fields[region]=eu`): what Swagger UI and
 * generated clients can send. The dotted spelling (`custom_fields.region.in=…`) means the same.
 */
export const CUSTOM_FIELDS_QUERY = {
  name: 'custom_fields',
  required: false,
  style: 'deepObject' as const,
  explode: true,
  schema: {
    type: 'object' as const,
    additionalProperties: { type: 'string' as const, maxLength: 16384 },
    example: { region: 'eu' },
  },
  description:
    'Plans whose custom field equals the value (a number or boolean when the value parses so, else a string): ' +
    'custom_fields[<key>]=<value>, the same as custom_fields.<key>=<value>, with your field key (1–64 letters, digits, _ or -) ' +
    'and an optional .eq or .in (a comma list) after it: custom_fields[region]=eu, custom_fields[tier.in]=1,2.',
};

import { Transform } from 'class-transformer';
import {
  Allow,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional, refused } from '../http/api-property';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';

const ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d11';
const PRODUCT_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
const VERSION_ID = '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e7f';
const WHEN = '2026-11-25T10:15:30.000Z';
const nullable = (_: object, value: unknown) => value !== null;
const OBJECT = (example: Record<string, unknown>, description?: string) =>
  ({ type: 'object', additionalProperties: true, example, ...(description ? { description } : {}) }) as const;

class PlanFieldsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Internal: EU SMB bundle',
    description: 'null leaves it; "" clears it.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(5000)
  description?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Everything a growing team needs.',
    description: 'Buyer-facing.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(5000)
  public_description?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'crm-plan-042',
    description: 'Unique per workspace; not copied by copy.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(255)
  external_id?: string | null;
  @ApiPropertyOptional({ ...OBJECT({ owner: 'growth' }), nullable: true })
  @IsOptional()
  @ValidateIf(nullable)
  @IsObject()
  metadata?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    ...OBJECT({ region: 'eu', tier: 2 }, 'Organization-defined custom field values (filterable).'),
    nullable: true,
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsObject()
  custom_fields?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    ...OBJECT({ de: { name: 'Wachstum' } }, 'Locale-keyed overrides of name, description, public_description.'),
    nullable: true,
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsObject()
  translations?: Record<string, unknown> | null;
  @ApiPropertyOptional({ type: [String], nullable: true, example: ['smb', 'eu'], description: 'Labels for filtering (tag=…).' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsArray()
  @IsString({ each: true })
  tags?: string[] | null;
  @ApiPropertyOptional({
    type: String,
    enum: ['week', 'month', 'year'],
    nullable: true,
    example: 'month',
    description: 'Staged in the working draft: subscriptions must bill on exactly this cadence from its go-live.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  price_cadence_unit?: string | null;
}

export class CreatePlanDto extends PlanFieldsDto {
  @ApiProperty({ example: 'Growth', description: '1–200 characters; internal, operator-facing.' })
  @IsString()
  @MaxLength(200)
  name!: string;
}

export class UpdatePlanDto extends PlanFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Growth (EU)' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(200)
  name?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'archived',
    description:
      '"archived" archives the plan; active is 400 PUBLISH_VIA_CHANGE_REQUIRED, draft or scheduled 400 STATUS_NOT_WRITABLE.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  status?: string | null;
  @ApiPropertyOptional({
    example: 3,
    description: 'The version you read; a stale one is 409 CONFLICT. Omitted: last write wins.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  expected_version?: number;
  @ApiPropertyOptional(refused('schedule through POST /v1/changes (`scheduled_for`).'))
  @Allow()
  effective_at?: unknown;
  @ApiPropertyOptional(refused('a plan update always stages its draft.'))
  @Allow()
  save_as_draft?: unknown;
  @ApiPropertyOptional(refused('publish through POST /v1/changes.'))
  @Allow()
  publish_now?: unknown;
  @ApiPropertyOptional(refused('pins go with the change that publishes (POST /v1/changes `pins`).'))
  @Allow()
  product_version_pins?: unknown;
}

export class CopyPlanDto {
  @ApiPropertyOptional({ example: 'Growth 2027', description: 'Default: the source’s name followed by " (Copy)".' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;
}

export class OpenPlanDraftDto {
  @ApiPropertyOptional({ example: VERSION_ID, description: 'The live version (default) or a scheduled release.' })
  @IsOptional()
  @IsUUID()
  base_version_id?: string;
}

const TERMS = {
  min_quantity: { example: 1, description: 'Integer ≥ 0; default 1.' },
  default_quantity: { example: 1, description: 'Integer ≥ min_quantity; seeded on new subscriptions; default 1.' },
  max_quantity: { example: 50, description: 'Integer ≥ default and ≥ 1, or null (no ceiling).' },
  included_quantity: { example: '1000', description: 'Decimal ≥ 0 bundled into the price, or null (none).' },
  refresh_count: { example: 1, description: '1–1000 with a refresh_unit (default 1).' },
  refresh_unit: {
    example: 'month',
    description:
      'day, week, month, year, billing_cycle (REFRESHING); null with refresh_count null: one pool per period (POOL); never (update only): granted once.',
  },
  rollover_enabled: {
    example: true,
    description: 'Unused allowance carries forward (needs an included quantity and a unit other than never).',
  },
  rollover_expiry_periods: { example: 3, description: 'Periods until carried allowance expires; null never.' },
  rollover_max: { example: '500', description: 'Cap on the carried bank; null uncapped; 0 carries nothing.' },
  unit_limit: {
    example: '2000',
    description:
      'On add: cap on a POOL’s balance; on update: lifetime cap on units drawn, with refresh_unit never. ≥ included_quantity.',
  },
} as const;

class MembershipTermsDto {
  @ApiPropertyOptional({ type: 'integer', nullable: true, ...TERMS.min_quantity }) @Allow() min_quantity?: unknown;
  @ApiPropertyOptional({ type: 'integer', nullable: true, ...TERMS.default_quantity }) @Allow() default_quantity?: unknown;
  @ApiPropertyOptional({ type: 'integer', nullable: true, ...TERMS.max_quantity }) @Allow() max_quantity?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, ...TERMS.included_quantity }) @Allow() included_quantity?: unknown;
  @ApiPropertyOptional({ type: 'integer', nullable: true, ...TERMS.refresh_count }) @Allow() refresh_count?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, ...TERMS.refresh_unit }) @Allow() refresh_unit?: unknown;
  @ApiPropertyOptional({ type: Boolean, nullable: true, ...TERMS.rollover_enabled }) @Allow() rollover_enabled?: unknown;
  @ApiPropertyOptional({ type: 'integer', nullable: true, ...TERMS.rollover_expiry_periods })
  @Allow()
  rollover_expiry_periods?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, ...TERMS.rollover_max }) @Allow() rollover_max?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, ...TERMS.unit_limit }) @Allow() unit_limit?: unknown;
  @ApiPropertyOptional({
    enum: ['latest', 'pinned'],
    example: 'latest',
    description: 'Applies at once; omitted on add: the workspace default, else latest.',
  })
  @IsOptional()
  @IsIn(['latest', 'pinned'])
  product_track_mode?: 'latest' | 'pinned';
}

export class AddPlanProductDto extends MembershipTermsDto {
  @ApiProperty({ example: PRODUCT_ID }) @IsUUID() product_id!: string;
}

export class UpdatePlanProductDto extends MembershipTermsDto {
  @ApiPropertyOptional({
    example: true,
    description: 'true rewrites min/default/max from the body (omitted ones at their defaults); false keeps the stored band.',
  })
  @IsOptional()
  @IsBoolean()
  quantity_band_set?: boolean;
  @ApiPropertyOptional({
    example: false,
    description: 'true rewrites the seven allowance fields from the body; false keeps them.',
  })
  @IsOptional()
  @IsBoolean()
  allowance_set?: boolean;
}

export class AnnotateVersionDto {
  @ApiPropertyOptional({ example: '2027 price list', description: '"" clears; absent leaves unchanged.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  release_name?: string;
  @ApiPropertyOptional({ example: 'Seats now include 1,000 API calls.', description: '"" clears; absent leaves unchanged.' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  release_note?: string;
}

const toList = ({ value }: { value: unknown }) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean);

export class ListPlanVersionsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    description: 'Repeatable or comma-separated: draft, scheduled, published, archived (default: all but draft).',
    example: 'published,archived',
  })
  @IsOptional()
  @Transform(toList)
  @ArrayNotEmpty({ message: 'status needs at least one of draft, scheduled, published, archived.' })
  @IsIn(['draft', 'scheduled', 'published', 'archived'], { each: true })
  status?: string[];
  @ApiPropertyOptional({ enum: ['canceled', 'discarded', 'errored', 'superseded'], example: 'superseded' })
  @IsOptional()
  @IsIn(['canceled', 'discarded', 'errored', 'superseded'])
  archived_reason?: string;
  @ApiPropertyOptional({
    enum: ['usage_count'],
    example: 'usage_count',
    description: 'usage_count: subscriptions and changes referring to each version.',
  })
  @IsOptional()
  @IsIn(['usage_count'])
  include?: string;
}

class VersionRefDto {
  @ApiProperty({ example: VERSION_ID }) id!: string;
  @ApiProperty({ example: 3 }) version!: number;
}

export class PlanMembershipDto {
  @ApiProperty({ example: PRODUCT_ID }) product_id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: VERSION_ID,
    description: 'The product version the live plan version resolved (null if not live).',
  })
  product_version_id!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 4 }) product_version!: number | null;
  @ApiProperty({ enum: ['latest', 'pinned'], example: 'latest' }) product_track_mode!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null }) pinned_product_version_id!: string | null;
  @ApiProperty({ type: String, enum: ['REFRESHING', 'POOL'], nullable: true, example: 'REFRESHING' }) allowance_kind!:
    string | null;
  @ApiProperty({ example: 1 }) min_quantity!: number;
  @ApiProperty({ example: 1 }) default_quantity!: number;
  @ApiProperty({ type: Number, nullable: true, example: 50 }) max_quantity!: number | null;
  @ApiProperty({ type: String, nullable: true, example: '1000' }) included_quantity!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 1 }) refresh_count!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'month' }) refresh_unit!: string | null;
  @ApiProperty({ example: true }) rollover_enabled!: boolean;
  @ApiProperty({ type: Number, nullable: true, example: 3 }) rollover_expiry_periods!: number | null;
  @ApiProperty({ type: String, nullable: true, example: '500' }) rollover_max!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) unit_limit!: string | null;
}

class PlanCommonDto {
  @ApiProperty({ example: 'Growth' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Internal: EU SMB bundle' }) description!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Everything a growing team needs.' }) public_description!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'crm-plan-042' }) external_id!: string | null;
  @ApiProperty(OBJECT({ owner: 'growth' })) metadata!: Record<string, unknown>;
  @ApiProperty(OBJECT({ region: 'eu' })) custom_fields!: Record<string, unknown>;
  @ApiProperty(OBJECT({ de: { name: 'Wachstum' } })) translations!: Record<string, unknown>;
  @ApiProperty({ enum: ['week', 'month', 'year'], example: 'month' }) price_cadence_unit!: string;
  @ApiProperty({ type: [PlanMembershipDto] }) products!: PlanMembershipDto[];
}

export class PlanDto extends PlanCommonDto {
  @ApiProperty({ example: 'plan' }) object!: string;
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({ type: [String], example: ['smb', 'eu'] }) tags!: string[];
  @ApiProperty({ enum: ['draft', 'scheduled', 'active', 'archived'], example: 'active' }) status!: string;
  @ApiProperty({ example: 3, description: 'The live version’s number (1 before the first go-live): the expected_version token.' })
  version!: number;
  @ApiProperty({ type: VersionRefDto, nullable: true }) live_version!: VersionRefDto | null;
  @ApiProperty({ type: VersionRefDto, nullable: true }) draft_version!: VersionRefDto | null;
  @ApiProperty({ example: false }) has_scheduled_version!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) next_release_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) published_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) archived_at!: Date | null;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
}

class CascadeSourceDto {
  @ApiProperty({ enum: ['cost', 'product'], example: 'product' }) entity_type!: string;
  @ApiProperty({ example: PRODUCT_ID }) entity_id!: string;
  @ApiProperty({ example: VERSION_ID }) version_id!: string;
  @ApiProperty({ example: 4 }) version!: number;
}

class CreatedByDto {
  @ApiProperty({ enum: ['api_key', 'user', 'system'], example: 'api_key' }) type!: string;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-1111-7aaa-8bbb-9ccc0ddd1eee' }) id!: string | null;
  @ApiPropertyOptional({ enum: ['cascade'], example: 'cascade' }) via?: string;
}

class ErrorSummaryDto {
  @ApiProperty({ example: 'PUBLISH_DEPENDENCY_UNPUBLISHED' }) code!: string;
  @ApiProperty({ example: 'A product on the plan has never gone live.' }) message!: string;
}

export class PlanVersionDto extends PlanCommonDto {
  @ApiProperty({ example: 'plan_version' }) object!: string;
  @ApiProperty({ example: VERSION_ID }) id!: string;
  @ApiProperty({ example: ID }) plan_id!: string;
  @ApiProperty({ example: 3 }) version!: number;
  @ApiProperty({ enum: ['draft', 'scheduled', 'published', 'archived'], example: 'published' }) status!: string;
  @ApiProperty({ type: String, enum: ['canceled', 'discarded', 'errored', 'superseded'], nullable: true, example: null })
  archived_reason!: string | null;
  @ApiProperty({ type: String, enum: ['manual', 'scheduled_release', 'cascade'], nullable: true, example: 'manual' }) origin!:
    string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null }) base_version_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-c0d1-7e2f-8a3b-4c5d6e7f8091' }) change_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'Scheduled rows only.' })
  scheduled_change_id!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) scheduled_for!: Date | null;
  @ApiProperty({ type: Number, nullable: true, example: null, description: 'Scheduled rows: 1-based position in the queue.' })
  rank!: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) effective_from!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) effective_to!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) published_at!: Date | null;
  @ApiProperty({ type: String, nullable: true, example: '2027 price list' }) release_name!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) release_note!: string | null;
  @ApiProperty({ type: CascadeSourceDto, nullable: true }) cascade_source!: CascadeSourceDto | null;
  @ApiProperty({ type: CreatedByDto }) created_by!: CreatedByDto;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ type: ErrorSummaryDto, nullable: true }) error!: ErrorSummaryDto | null;
  @ApiPropertyOptional({ example: 12, description: 'With include=usage_count: subscriptions and changes referring to it.' })
  usage_count?: number;
}

export class PlanVersionListDto {
  @ApiProperty({ type: [PlanVersionDto] }) data!: PlanVersionDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

class PlanDraftSummaryDto {
  @ApiProperty({ type: [String], example: ['price_cadence_unit'] }) fields_changed!: string[];
  @ApiProperty({ type: [String], example: [PRODUCT_ID] }) products_added!: string[];
  @ApiProperty({ type: [String], example: [] }) products_removed!: string[];
  @ApiProperty({ type: [String], example: [] }) memberships_changed!: string[];
}

export class PlanDraftDto extends PlanVersionDto {
  @ApiProperty({ example: WHEN }) opened_at!: Date;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
  @ApiProperty({ type: Number, nullable: true, example: 3 }) base_version!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 3 }) head_version!: number | null;
  @ApiProperty({ type: PlanDraftSummaryDto }) summary!: PlanDraftSummaryDto;
}

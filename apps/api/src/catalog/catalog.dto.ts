import { Type } from 'class-transformer';
import {
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { IsTimestamp } from '../http/timestamp';

const ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
const VERSION_ID = '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e7f';
const WHEN = '2026-11-25T10:15:30.000Z';
const METADATA = { type: 'object', additionalProperties: true, example: { ledger_account: '4000' } } as const;
const TRANSLATIONS = {
  type: 'object',
  additionalProperties: true,
  example: { de: 'Plattformgebühr pro Sitz', fr: 'Frais de plateforme par siège' },
  description: 'Locale-keyed overrides of the description.',
} as const;
const nullable = (_: object, value: unknown) => value !== null;

// ——— Costs ———

export class CreateCostDto {
  @ApiProperty({ example: 'platform_fee', description: '1–64 characters of A–Z a–z 0–9 . _ -; how formulas reference the cost.' })
  @IsString()
  key!: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '12.50',
    description: 'A static value; exactly one of amount or expression.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  amount?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'base_rate * 1.2 + {setup-fee}',
    description: 'A formula over other cost keys: + - * /, parentheses, min, max, round, ceil, floor; braces quote a key.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(1000)
  expression?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Platform fee per seat' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(2000)
  description?: string | null;
  @ApiPropertyOptional({ ...METADATA, nullable: true }) @IsOptional() @ValidateIf(nullable) @IsObject() metadata?: Record<
    string,
    unknown
  > | null;
  @ApiPropertyOptional({ ...TRANSLATIONS, nullable: true })
  @IsOptional()
  @ValidateIf(nullable)
  @IsObject()
  translations?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'null (ORG cost); on /v1/products/{id}/costs it may repeat the path’s product.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsUUID()
  product_id?: string | null;
}

export class UpdateCostDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '14.00',
    description: 'A new value: a new revision. At most one of amount or expression.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  amount?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'base_rate * 1.25' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(1000)
  expression?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Platform fee per active seat',
    description: 'null leaves it unchanged; "" clears it.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(2000)
  description?: string | null;
  @ApiPropertyOptional({ ...METADATA, nullable: true }) @IsOptional() @ValidateIf(nullable) @IsObject() metadata?: Record<
    string,
    unknown
  > | null;
  @ApiPropertyOptional({ ...TRANSLATIONS, nullable: true })
  @IsOptional()
  @ValidateIf(nullable)
  @IsObject()
  translations?: Record<string, unknown> | null;
  @ApiPropertyOptional({ type: Boolean, nullable: true, example: true, description: 'Applies live; null leaves it unchanged.' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsBoolean()
  requires_continuous_coverage?: boolean | null;
  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    example: false,
    description: 'Refused when true (a cost has no draft of its own).',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsBoolean()
  save_as_draft?: boolean | null;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2027-01-01T00:00:00Z',
    description: 'When the new value takes effect (default now; never in the past). Value changes only.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsTimestamp()
  effective_at?: Date | null;
}

export class ListCostsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: ['ORG', 'PRODUCT'], example: 'ORG', description: 'Omitted: both scopes.' })
  @IsOptional()
  @IsIn(['ORG', 'PRODUCT'])
  scope?: 'ORG' | 'PRODUCT';
}

export class ListProductCostsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    enum: ['draft', 'head'],
    example: 'draft',
    description:
      'draft: the working draft’s rows and staged values; head: the live version’s only. Omitted: live values where live, else staged.',
  })
  @IsOptional()
  @IsIn(['draft', 'head'])
  view?: 'draft' | 'head';
  @ApiPropertyOptional({ example: VERSION_ID, description: 'A version’s materialized rows (ORG costs included); not with view.' })
  @IsOptional()
  @IsUUID()
  product_version_id?: string;
}

class PendingValueDto {
  @ApiProperty({ type: String, nullable: true, example: '14.00' }) amount!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) expression!: string | null;
  @ApiProperty({ example: '2027-01-01T00:00:00.000Z' }) effective_at!: Date;
  @ApiProperty({ example: 3 }) revision!: number;
}

export class CostDto {
  @ApiProperty({ example: 'cost' }) object!: string;
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({ example: 'platform_fee' }) key!: string;
  @ApiProperty({ enum: ['ORG', 'PRODUCT'], example: 'ORG' }) scope!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null }) product_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '12.50' }) amount!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) expression!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '12.5',
    description: 'The value in effect; an expression evaluated now.',
  })
  value!: string | null;
  @ApiProperty({ example: 2, description: 'The revision shown.' }) revision!: number;
  @ApiProperty({ example: WHEN }) effective_at!: Date;
  @ApiProperty({
    type: PendingValueDto,
    nullable: true,
    description: 'ORG costs: the next value, saved with a future effective_at.',
  })
  pending_value!: PendingValueDto | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    example: null,
    description: 'PRODUCT costs: whether the live version carries it.',
  })
  released!: boolean | null;
  @ApiProperty({ type: String, nullable: true, example: 'Platform fee per seat' }) description!: string | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown>;
  @ApiProperty(TRANSLATIONS) translations!: Record<string, unknown>;
  @ApiProperty({ example: false }) requires_continuous_coverage!: boolean;
  @ApiProperty({ enum: ['active', 'retired', 'removed_in_draft', 'removed'], example: 'active' }) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0193a5c2-9b21-7d4f-8e3a-4b2c5d6e7f80',
    description: 'The latest cascade this ORG cost started.',
  })
  cascade_run_id!: string | null;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
}

export class CostListDto {
  @ApiProperty({ type: [CostDto] }) data!: CostDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export class ConsumerDto {
  @ApiProperty({ example: ID }) product_id!: string;
  @ApiProperty({ type: String, nullable: true, example: VERSION_ID }) product_version_id!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 3 }) version!: number | null;
}

export class ConsumerListDto {
  @ApiProperty({ type: [ConsumerDto] }) data!: ConsumerDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

// ——— Products ———

export class CreateProductDto {
  @ApiProperty({ example: 'Seats', description: '1–200 characters.' }) @IsString() @MaxLength(200) name!: string;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Per-seat licence' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(2000)
  description?: string | null;
  @ApiPropertyOptional({ ...METADATA, nullable: true }) @IsOptional() @ValidateIf(nullable) @IsObject() metadata?: Record<
    string,
    unknown
  > | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'seat_price * (1 + margin)',
    description: 'The unit price as a formula over cost keys; staged in the working draft.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(1000)
  price_expression?: string | null;
}

export class UpdateProductDto {
  @ApiPropertyOptional({ example: 'Seats (annual)' }) @IsOptional() @IsString() @MaxLength(200) name?: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Per-seat licence, billed yearly',
    description: 'null leaves it; "" clears it.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(2000)
  description?: string | null;
  @ApiPropertyOptional({ ...METADATA, nullable: true }) @IsOptional() @ValidateIf(nullable) @IsObject() metadata?: Record<
    string,
    unknown
  > | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'seat_price * 1.1',
    description: 'Staged in the working draft; null clears the formula.',
  })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(1000)
  price_expression?: string | null;
  @ApiPropertyOptional({
    enum: ['archived'],
    example: 'archived',
    description: 'Archiving cancels the queue; the live version keeps billing.',
  })
  @IsOptional()
  @IsString()
  status?: string;
}

export class OpenDraftDto {
  @ApiPropertyOptional({ example: VERSION_ID, description: 'The live version (default) or a scheduled release.' })
  @IsOptional()
  @IsUUID()
  base_version_id?: string;
}

class VersionRefDto {
  @ApiProperty({ example: VERSION_ID }) id!: string;
  @ApiProperty({ example: 3 }) version!: number;
}

export class ProductDto {
  @ApiProperty({ example: 'product' }) object!: string;
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({ example: 'Seats' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Per-seat licence' }) description!: string | null;
  @ApiProperty(METADATA) metadata!: Record<string, unknown>;
  @ApiProperty({ enum: ['draft', 'active', 'archived'], example: 'active' }) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'seat_price * (1 + margin)',
    description: 'The working view: the draft’s, else the live one.',
  })
  price_expression!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '13.75', description: 'What the live version resolved at go-live.' })
  unit_price!: string | null;
  @ApiProperty({ example: 3, description: 'The live version’s number (1 before the first go-live).' }) version!: number;
  @ApiProperty({ type: VersionRefDto, nullable: true }) live_version!: VersionRefDto | null;
  @ApiProperty({ type: VersionRefDto, nullable: true }) draft_version!: VersionRefDto | null;
  @ApiProperty({ example: false }) has_scheduled_version!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) next_release_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) published_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) archived_at!: Date | null;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
}

export class ProductListDto {
  @ApiProperty({ type: [ProductDto] }) data!: ProductDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

class CascadeSourceDto {
  @ApiProperty({ enum: ['cost', 'product'], example: 'cost' }) entity_type!: string;
  @ApiProperty({ example: ID }) entity_id!: string;
  @ApiProperty({ example: '0193a5c2-a0b1-7c2d-8e3f-4a5b6c7d8e9f' }) version_id!: string;
  @ApiProperty({ example: 4 }) version!: number;
}

class CreatedByDto {
  @ApiProperty({ enum: ['api_key', 'user', 'system'], example: 'api_key' }) type!: string;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-1111-7aaa-8bbb-9ccc0ddd1eee' }) id!: string | null;
  @ApiPropertyOptional({ enum: ['cascade'], example: 'cascade', description: 'Present when a cascade acted for this principal.' })
  via?: string;
}

class ErrorSummaryDto {
  @ApiProperty({ example: 'PUBLISH_FORMULA_INVALID' }) code!: string;
  @ApiProperty({ example: 'The price formula cannot be resolved: unknown key margin.' }) message!: string;
}

class ErrorWithDetailsDto extends ErrorSummaryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { reason: 'unknown_key', keys: ['margin'], retired_keys: ['margin'] },
    description: 'The refusal’s details, as the error body of the same refusal would carry them ({} when none).',
  })
  details!: Record<string, unknown>;
}

class MaterializedCostDto {
  @ApiProperty({ example: 'seat_price' }) key!: string;
  @ApiProperty({ example: ID }) cost_id!: string;
  @ApiProperty({ enum: ['ORG', 'PRODUCT'], example: 'ORG' }) scope!: string;
  @ApiProperty({ example: 2 }) revision!: number;
  @ApiProperty({ type: String, enum: ['amount', 'expression'], nullable: true, example: 'amount' }) kind!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) expression!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '12.5',
    description: 'Null in drafts and queued versions (resolved at go-live).',
  })
  value!: string | null;
}

export class ProductVersionDto {
  @ApiProperty({ example: 'product_version' }) object!: string;
  @ApiProperty({ example: VERSION_ID }) id!: string;
  @ApiProperty({ example: ID }) product_id!: string;
  @ApiProperty({ example: 3 }) version!: number;
  @ApiProperty({ enum: ['draft', 'scheduled', 'published', 'archived'], example: 'published' }) status!: string;
  @ApiProperty({ type: String, enum: ['canceled', 'discarded', 'errored', 'superseded'], nullable: true, example: null })
  archived_reason!: string | null;
  @ApiProperty({ type: String, enum: ['manual', 'scheduled_release', 'cascade'], nullable: true, example: 'manual' }) origin!:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e70' }) base_version_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-c0d1-7e2f-8a3b-4c5d6e7f8091' }) change_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'Scheduled rows only.' })
  scheduled_change_id!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) scheduled_for!: Date | null;
  @ApiProperty({ type: Number, nullable: true, example: null, description: 'Scheduled rows: position in the queue, 1 = next.' })
  rank!: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) effective_from!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) effective_to!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) published_at!: Date | null;
  @ApiProperty({ type: String, nullable: true, example: '2027 price list' }) release_name!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Seat price follows the new platform fee.' }) release_note!:
    string | null;
  @ApiProperty({ type: CascadeSourceDto, nullable: true }) cascade_source!: CascadeSourceDto | null;
  @ApiProperty({ type: CreatedByDto }) created_by!: CreatedByDto;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ type: ErrorWithDetailsDto, nullable: true }) error!: ErrorWithDetailsDto | null;
  @ApiProperty({ type: String, nullable: true, example: 'seat_price * (1 + margin)' }) price_expression!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '13.75' }) unit_price!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) not_before!: Date | null;
  @ApiProperty({ type: [MaterializedCostDto] }) costs!: MaterializedCostDto[];
}

export class ProductVersionListDto {
  @ApiProperty({ type: [ProductVersionDto] }) data!: ProductVersionDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

class DraftSummaryDto {
  @ApiProperty({ type: [String], example: ['price_expression'] }) fields_changed!: string[];
  @ApiProperty({ type: [String], example: ['setup_fee'] }) costs_added!: string[];
  @ApiProperty({ type: [String], example: [] }) costs_removed!: string[];
  @ApiProperty({ type: [String], example: ['seat_price'] }) cost_values_changed!: string[];
}

export class StagedDraftDto {
  @ApiProperty({ example: 'staged_draft' }) object!: string;
  @ApiProperty({ example: VERSION_ID, description: 'The staged_version_id to publish.' }) id!: string;
  @ApiProperty({ example: ID }) product_id!: string;
  @ApiProperty({ example: 4, description: 'The number it will publish as.' }) version!: number;
  @ApiProperty({ example: WHEN }) opened_at!: Date;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e70' }) base_version_id!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 3 }) base_version!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 3 }) head_version!: number | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'It cannot go live earlier (a staged cost value’s effective_at).',
  })
  not_before!: Date | null;
  @ApiProperty({ type: String, nullable: true, example: 'seat_price * (1 + margin)' }) price_expression!: string | null;
  @ApiProperty({ type: DraftSummaryDto }) summary!: DraftSummaryDto;
}

// ——— Changes ———

class PinDto {
  @ApiProperty({ example: ID }) @IsUUID() product_id!: string;
  @ApiProperty({ example: VERSION_ID }) @IsUUID() product_version_id!: string;
}

export class CreateChangeDto {
  @ApiProperty({ enum: ['catalog.publish_version'], example: 'catalog.publish_version' })
  @Equals('catalog.publish_version')
  operation!: string;
  @ApiProperty({ enum: ['plan', 'product'], example: 'product' }) @IsIn(['plan', 'product']) subject_kind!: 'plan' | 'product';
  @ApiProperty({ example: ID }) @IsUUID() subject_id!: string;
  @ApiProperty({ example: VERSION_ID, description: 'The working draft’s id.' }) @IsUUID() staged_version_id!: string;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    description: 'Omitted: publish now.',
  })
  @IsOptional()
  @IsTimestamp()
  scheduled_for?: Date;
  @ApiPropertyOptional({ type: [PinDto], description: 'Plans only: resolve these memberships to these product versions.' })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => PinDto)
  pins?: PinDto[];
  @ApiPropertyOptional({ type: String, nullable: true, example: '2027 price list' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(200)
  release_name?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Seat price follows the new platform fee.' })
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(5000)
  release_note?: string | null;
}

class PinViewDto {
  @ApiProperty({ example: ID }) product_id!: string;
  @ApiProperty({ example: VERSION_ID }) product_version_id!: string;
}

class DependentDto {
  @ApiProperty({ example: VERSION_ID }) id!: string;
  @ApiProperty({ example: 5 }) version!: number;
  @ApiProperty({ example: 'draft' }) status!: string;
}

export class ChangeDto {
  @ApiProperty({ example: 'change' }) object!: string;
  @ApiProperty({ example: '0193a5c2-c0d1-7e2f-8a3b-4c5d6e7f8091' }) id!: string;
  @ApiProperty({ example: 'catalog.publish_version' }) operation!: string;
  @ApiProperty({ enum: ['plan', 'product'], example: 'product' }) subject_kind!: string;
  @ApiProperty({ example: ID }) subject_id!: string;
  @ApiProperty({ example: VERSION_ID }) staged_version_id!: string;
  @ApiProperty({ enum: ['pending', 'applied', 'canceled', 'failed'], example: 'applied' }) status!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) scheduled_for!: Date | null;
  @ApiProperty({ type: Number, nullable: true, example: null, description: 'Pending changes: position in the subject’s queue.' })
  rank!: number | null;
  @ApiProperty({ type: [PinViewDto] }) pins!: PinViewDto[];
  @ApiProperty({ type: String, nullable: true, example: '2027 price list' }) release_name!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) release_note!: string | null;
  @ApiProperty({ type: VersionRefDto, nullable: true, description: 'The version that went live.' }) result!: VersionRefDto | null;
  @ApiProperty({ type: ErrorSummaryDto, nullable: true, description: 'Why a release failed when it fired.' })
  error!: ErrorSummaryDto | null;
  @ApiPropertyOptional({
    type: [DependentDto],
    description: 'Cancel only: versions whose content includes the canceled release.',
  })
  dependents?: DependentDto[];
  @ApiProperty({ type: CreatedByDto }) created_by!: CreatedByDto;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) applied_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) canceled_at!: Date | null;
}

// ——— Cascade runs ———

class CascadeCountsDto {
  @ApiProperty({ example: 1000 }) total!: number;
  @ApiProperty({ example: 12 }) pending!: number;
  @ApiProperty({ example: 980 }) republished!: number;
  @ApiProperty({ example: 5 }) unchanged!: number;
  @ApiProperty({ example: 3 }) errored!: number;
}

export class CascadeRunDto {
  @ApiProperty({ example: 'cascade_run' }) object!: string;
  @ApiProperty({ example: '0193a5c2-9b21-7d4f-8e3a-4b2c5d6e7f80' }) id!: string;
  @ApiProperty({ enum: ['cost_value', 'cost_retire', 'product_go_live'], example: 'cost_value' }) trigger!: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: null,
    description:
      'A product go-live’s run opened inside a cost cascade (its plans had already moved for that cascade): the cascade’s run.',
  })
  root_run_id!: string | null;
  @ApiProperty({ type: CascadeSourceDto }) source!: CascadeSourceDto;
  @ApiProperty({ enum: ['pending', 'running', 'completed'], example: 'running' }) status!: string;
  @ApiProperty({ example: WHEN }) effective_at!: Date;
  @ApiProperty({ type: CascadeCountsDto }) counts!: CascadeCountsDto;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) started_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) completed_at!: Date | null;
}

export class CascadeTaskDto {
  @ApiProperty({ enum: ['product', 'plan'], example: 'product' }) subject_kind!: string;
  @ApiProperty({ example: ID }) subject_id!: string;
  @ApiProperty({ enum: ['pending', 'republished', 'unchanged', 'errored'], example: 'republished' }) status!: string;
  @ApiProperty({ type: VersionRefDto, nullable: true }) result_version!: VersionRefDto | null;
  @ApiProperty({ example: 1 }) attempts!: number;
  @ApiProperty({ type: ErrorWithDetailsDto, nullable: true }) error!: ErrorWithDetailsDto | null;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
}

export class CascadeTaskListDto {
  @ApiProperty({ type: [CascadeTaskDto] }) data!: CascadeTaskDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

// ——— Evaluate ———

export class EvaluateFormulaDto {
  @ApiPropertyOptional({
    example: 'seat_price * (1 + margin)',
    description: 'Explain form: the formula to evaluate (or, with cost_id, the new expression).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  expression?: string;
  @ApiPropertyOptional({
    example: ID,
    description: 'Explain form: resolve keys as this product does (its PRODUCT costs shadow ORG ones).',
  })
  @IsOptional()
  @IsUUID()
  product_id?: string;
  @ApiPropertyOptional({
    enum: ['draft', 'head'],
    example: 'draft',
    description: 'Explain form, with product_id: the working draft (default) or the live version.',
  })
  @IsOptional()
  @IsIn(['draft', 'head'])
  view?: 'draft' | 'head';
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    description: 'Explain form: ORG values in effect at this instant (default now).',
  })
  @IsOptional()
  @IsTimestamp()
  as_of?: Date;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { margin: '0.25' },
    description: 'Explain form: what-if values standing for keys.',
  })
  @IsOptional()
  @IsObject()
  values?: Record<string, string>;
  @ApiPropertyOptional({ example: ID, description: 'Cascade preview form: the ORG cost whose new value to try.' })
  @IsOptional()
  @IsUUID()
  cost_id?: string;
  @ApiPropertyOptional({ example: '14.00', description: 'Cascade preview form: the new amount (or send expression).' })
  @IsOptional()
  @IsString()
  amount?: string;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    description: 'Cascade preview form: when the value would take effect.',
  })
  @IsOptional()
  @IsTimestamp()
  effective_at?: Date;
}

class ExplainReferenceDto {
  @ApiProperty({ example: 'seat_price' }) key!: string;
  @ApiProperty({ type: String, nullable: true, example: ID }) cost_id!: string | null;
  @ApiProperty({ enum: ['ORG', 'PRODUCT', 'VALUE'], example: 'ORG', description: 'VALUE: a what-if value from the request.' })
  scope!: string;
  @ApiProperty({ type: Number, nullable: true, example: 2 }) revision!: number | null;
  @ApiProperty({ example: '11' }) value!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) expression!: string | null;
}

class PreviewConsumerDto {
  @ApiProperty({ example: ID }) product_id!: string;
  @ApiProperty({ example: 3 }) version!: number;
  @ApiProperty({ type: String, nullable: true, example: '13.75' }) unit_price_before!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '17.5' }) unit_price_after!: string | null;
  @ApiProperty({ type: ErrorSummaryDto, nullable: true }) error!: ErrorSummaryDto | null;
}

export class FormulaEvaluationDto {
  @ApiProperty({ enum: ['formula_evaluation', 'cascade_preview'], example: 'formula_evaluation' }) object!: string;
  @ApiPropertyOptional({ example: '13.75', description: 'Explain form.' }) value?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: {
      type: 'binary',
      op: '*',
      value: '13.75',
      left: { type: 'ref', key: 'seat_price', value: '11' },
      right: { type: 'number', text: '1.25', value: '1.25' },
    },
    description: 'Explain form: the parsed formula, each node with its value.',
  })
  explain?: Record<string, unknown>;
  @ApiPropertyOptional({ type: [ExplainReferenceDto], description: 'Explain form: every key resolved, transitively.' })
  references?: ExplainReferenceDto[];
  @ApiPropertyOptional({ example: ID, description: 'Cascade preview form.' }) cost_id?: string;
  @ApiPropertyOptional({ example: WHEN, description: 'Cascade preview form.' }) effective_at?: Date;
  @ApiPropertyOptional({ type: [PreviewConsumerDto], description: 'Cascade preview form: each consumer before and after.' })
  consumers?: PreviewConsumerDto[];
}

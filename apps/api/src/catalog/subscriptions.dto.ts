import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { IsTimestamp } from '../http/timestamp';

const SUBSCRIPTION_ID = '0193a5c2-9b21-7d4f-8e3a-4b5c6d7e8f90';
const CUSTOMER_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04';
const PLAN_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d11';
const PRODUCT_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
const PRODUCT_VERSION_ID = '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e7f';
const PLAN_VERSION_ID = '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e80';
const MIGRATION_ID = '0193a5c2-a1b2-7c3d-8e4f-5a6b7c8d9e0f';
const WHEN = '2026-11-25T10:15:30.000Z';
const CADENCES = ['week', 'month', 'year'];
const OUTCOME_STATUSES = ['pending', 'moved', 'skipped', 'failed'];

class ProductPinDto {
  @ApiProperty({ example: PRODUCT_ID, description: 'A product on the subscription’s plan version.' })
  @IsUUID()
  product_id!: string;
  @ApiProperty({ example: PRODUCT_VERSION_ID, description: 'A version of that product that went live.' })
  @IsUUID()
  product_version_id!: string;
}

export class CreateSubscriptionDto {
  @ApiProperty({ example: CUSTOMER_ID }) @IsUUID() customer_id!: string;
  @ApiProperty({ example: PLAN_ID }) @IsUUID() plan_id!: string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 2,
    description: 'A version of the plan that went live; default: the live version.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  plan_version?: number;
  @ApiPropertyOptional({
    enum: CADENCES,
    example: 'month',
    description: 'Must equal the version’s price_cadence_unit (the default).',
  })
  @IsOptional()
  @IsIn(CADENCES)
  billing_cadence?: string;
  @ApiPropertyOptional({
    enum: ['pinned', 'latest'],
    example: 'latest',
    description:
      'pinned (default): stays on its version until migrated; latest: moves when a plan version goes live (unless it pins a product).',
  })
  @IsOptional()
  @IsIn(['pinned', 'latest'])
  plan_track_mode?: string;
  @ApiPropertyOptional({
    enum: ['immediate', 'next_period'],
    example: 'next_period',
    description:
      'How an automatic move lands: at the go-live (immediate) or at the end of the current period (next_period, default).',
  })
  @IsOptional()
  @IsIn(['immediate', 'next_period'])
  version_change_strategy?: string;
  @ApiPropertyOptional({
    type: [ProductPinDto],
    description: 'Product versions this subscription keeps; any pin stops automatic moves.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ProductPinDto)
  product_pins?: ProductPinDto[];
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2026-12-01T00:00:00Z',
    description: 'Default: now. The period lasts one cadence unit.',
  })
  @IsOptional()
  @IsTimestamp()
  current_period_start?: Date;
}

export class ListSubscriptionsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: PLAN_ID }) @IsOptional() @IsUUID() plan_id?: string;
  @ApiPropertyOptional({ example: CUSTOMER_ID }) @IsOptional() @IsUUID() customer_id?: string;
  @ApiPropertyOptional({ enum: ['active', 'canceled'], example: 'active' }) @IsOptional() @IsIn(['active', 'canceled']) status?:
    'active' | 'canceled';
}

class SubscriptionVersionRefDto {
  @ApiProperty({ example: PLAN_VERSION_ID }) id!: string;
  @ApiProperty({ example: 2 }) version!: number;
}

class ProductPinViewDto {
  @ApiProperty({ example: PRODUCT_ID }) product_id!: string;
  @ApiProperty({ example: PRODUCT_VERSION_ID }) product_version_id!: string;
}

export class SubscriptionDto {
  @ApiProperty({ example: 'subscription' }) object!: string;
  @ApiProperty({ example: SUBSCRIPTION_ID }) id!: string;
  @ApiProperty({ example: CUSTOMER_ID }) customer_id!: string;
  @ApiProperty({ example: PLAN_ID }) plan_id!: string;
  @ApiProperty({ type: SubscriptionVersionRefDto, description: 'The plan version it bills on.' })
  plan_version!: SubscriptionVersionRefDto;
  @ApiProperty({ enum: ['active', 'canceled'], example: 'active' }) status!: string;
  @ApiProperty({ enum: CADENCES, example: 'month' }) billing_cadence!: string;
  @ApiProperty({ enum: ['pinned', 'latest'], example: 'latest' }) plan_track_mode!: string;
  @ApiProperty({ enum: ['immediate', 'next_period'], example: 'next_period' }) version_change_strategy!: string;
  @ApiProperty({ type: [ProductPinViewDto] }) product_pins!: ProductPinViewDto[];
  @ApiProperty({ example: false, description: 'Pinned, or pinning a product: automatic moves pass it by.' }) holds_pin!: boolean;
  @ApiProperty({ example: '2026-12-01T00:00:00.000Z' }) current_period_start!: Date;
  @ApiProperty({ example: '2027-01-01T00:00:00.000Z' }) current_period_end!: Date;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ example: WHEN }) updated_at!: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) canceled_at!: Date | null;
}

export class SubscriptionListDto {
  @ApiProperty({ type: [SubscriptionDto] }) data!: SubscriptionDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export class MigratePlanDto {
  @ApiProperty({
    type: String,
    example: 'IMMEDIATE',
    description: 'PREVIEW, IMMEDIATE or SCHEDULED, in any case; answered upper case.',
  })
  @IsString()
  @MaxLength(20)
  mode!: string;
  @ApiProperty({ type: 'integer', minimum: 1, example: 3, description: 'A version of the plan that went live.' })
  @IsInt()
  target_version!: number;
  @ApiPropertyOptional({
    enum: ['create_prorations', 'none', 'always_invoice'],
    example: 'create_prorations',
    description: 'Default create_prorations.',
  })
  @IsOptional()
  @IsString()
  proration_strategy?: string;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    description: 'Required with SCHEDULED (in the future), refused otherwise.',
  })
  @IsOptional()
  @IsTimestamp()
  scheduled_at?: Date;
}

class SkippedByReasonDto {
  @ApiProperty({ example: 0 }) ALREADY_ON_TARGET!: number;
  @ApiProperty({ example: 0 }) NOT_ACTIVE!: number;
  @ApiProperty({ example: 2 }) CADENCE_MISMATCH!: number;
  @ApiProperty({ example: 1 }) PIN_NOT_IN_TARGET!: number;
  @ApiProperty({ example: 0 }) SUPERSEDED!: number;
}

export class MigrationResultDto {
  @ApiProperty({ enum: ['PREVIEW', 'IMMEDIATE', 'SCHEDULED'], example: 'IMMEDIATE' }) mode!: string;
  @ApiProperty({ example: 3 }) target_version!: number;
  @ApiProperty({
    example: 1200,
    description: 'The plan’s ACTIVE subscriptions not on the target (pinned ones included): one outcome each.',
  })
  affected_subscriptions!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) scheduled_at!: Date | null;
  @ApiProperty({ type: String, nullable: true, example: MIGRATION_ID, description: 'null for PREVIEW (nothing is written).' })
  migration_id!: string | null;
  @ApiProperty({
    type: SkippedByReasonDto,
    description: 'Of the affected subscriptions, those that would be skipped now, by reason.',
  })
  skipped_by_reason!: SkippedByReasonDto;
}

class MigrationCountsDto {
  @ApiProperty({ example: 1200 }) total!: number;
  @ApiProperty({ example: 0 }) pending!: number;
  @ApiProperty({ example: 1197 }) moved!: number;
  @ApiProperty({ example: 3 }) skipped!: number;
  @ApiProperty({ example: 0 }) failed!: number;
}

class MigrationCreatedByDto {
  @ApiProperty({ enum: ['api_key', 'user'], example: 'api_key' }) type!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02' }) id!: string;
}

export class MigrationDto {
  @ApiProperty({ example: 'migration' }) object!: string;
  @ApiProperty({ example: MIGRATION_ID }) id!: string;
  @ApiProperty({ example: PLAN_ID }) plan_id!: string;
  @ApiProperty({
    enum: ['manual', 'publish'],
    example: 'manual',
    description: 'publish: made when a version went live, for subscriptions tracking latest.',
  })
  trigger!: string;
  @ApiProperty({ enum: ['IMMEDIATE', 'SCHEDULED'], example: 'IMMEDIATE' }) mode!: string;
  @ApiProperty({ type: SubscriptionVersionRefDto }) target_version!: SubscriptionVersionRefDto;
  @ApiProperty({ enum: ['create_prorations', 'none', 'always_invoice'], example: 'create_prorations' })
  proration_strategy!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) scheduled_at!: Date | null;
  @ApiProperty({ enum: ['scheduled', 'running', 'completed', 'canceled'], example: 'completed' }) status!: string;
  @ApiProperty({ type: MigrationCountsDto, description: 'Outcomes by status; total = the affected subscriptions.' })
  counts!: MigrationCountsDto;
  @ApiProperty({ type: SkippedByReasonDto }) skipped_by_reason!: SkippedByReasonDto;
  @ApiProperty({ type: MigrationCreatedByDto }) created_by!: MigrationCreatedByDto;
  @ApiProperty({ example: WHEN }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) started_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) completed_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) canceled_at!: Date | null;
}

export class ListOutcomesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: OUTCOME_STATUSES, example: 'skipped' }) @IsOptional() @IsIn(OUTCOME_STATUSES) status?:
    'pending' | 'moved' | 'skipped' | 'failed';
}

export class MigrationOutcomeDto {
  @ApiProperty({ example: 'migration_outcome' }) object!: string;
  @ApiProperty({ example: MIGRATION_ID }) migration_id!: string;
  @ApiProperty({ example: SUBSCRIPTION_ID }) subscription_id!: string;
  @ApiProperty({ enum: OUTCOME_STATUSES, example: 'skipped' }) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'CADENCE_MISMATCH',
    description:
      'skipped: ALREADY_ON_TARGET, NOT_ACTIVE, CADENCE_MISMATCH, PIN_NOT_IN_TARGET or SUPERSEDED; failed: SUBSCRIPTION_MOVE_REFUSED (the database refused this subscription’s move, a constraint or a trigger; the others still move).',
  })
  reason!: string | null;
  @ApiProperty({ type: SubscriptionVersionRefDto }) from_version!: SubscriptionVersionRefDto;
  @ApiProperty({ type: SubscriptionVersionRefDto }) to_version!: SubscriptionVersionRefDto;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: WHEN,
    description: 'When the move takes (or took) effect.',
  })
  effective_at!: Date | null;
  @ApiProperty({ enum: ['create_prorations', 'none', 'always_invoice'], example: 'create_prorations' })
  proration_strategy!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: WHEN }) processed_at!: Date | null;
}

export class MigrationOutcomeListDto {
  @ApiProperty({ type: [MigrationOutcomeDto] }) data!: MigrationOutcomeDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

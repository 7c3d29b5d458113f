import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { IsTimestamp } from '../http/timestamp';

const PLAN_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d11';
const WHEN = '2026-11-25T10:15:30.000Z';

class MoversByStrategyDto {
  @ApiProperty({ example: 12, description: 'Movers whose version_change_strategy is immediate: they would move at the go-live.' })
  immediate!: number;
  @ApiProperty({ example: 30, description: 'Movers that would move at the end of their current period.' }) next_period!: number;
}

export class PublishImpactDto {
  @ApiProperty({
    example: 42,
    description: 'ACTIVE subscriptions that track the latest version (no pin): a publish would move them.',
  })
  would_migrate!: number;
  @ApiProperty({ example: 7, description: 'ACTIVE subscriptions holding a pin (pinned plan mode or a product pin): they stay.' })
  pinned!: number;
  @ApiProperty({ type: MoversByStrategyDto }) movers_by_strategy!: MoversByStrategyDto;
}

export class PublishCheckQueryDto {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    description: 'Check a publish scheduled for this instant instead of a publish now.',
  })
  @IsOptional()
  @IsTimestamp()
  scheduled_for?: Date;
}

export class PublishCheckDto {
  @ApiProperty({ example: false, description: 'Whether publishing the working draft (now, or at scheduled_for) would succeed.' })
  ok!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'PUBLISH_DEPENDENCY_UNPUBLISHED',
    description: 'The first refusal’s code; null when ok.',
  })
  code!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'A product on the plan has never gone live.',
    description: 'For an operator; null when ok.',
  })
  message!: string | null;
}

export class SupersedeForecastDto {
  @ApiProperty({ example: true, description: 'Whether the version went live, so a subscription or a migration can pin it.' })
  pinnable!: boolean;
  @ApiProperty({ example: false, description: 'Always false for plans: nothing in the catalog resolves a plan version.' })
  republishes_consumers!: boolean;
  @ApiProperty({ example: 120, description: 'ACTIVE subscriptions billing on this version now.' }) live_readers!: number;
}

export class ReferrersQueryDto extends ListQueryDto {
  @ApiProperty({ enum: ['subscription', 'change'], example: 'subscription', description: 'Required: which referrers to list.' })
  @IsOptional()
  @IsString()
  type?: string;
}

export class VersionReferrerDto {
  @ApiProperty({ enum: ['subscription', 'change'], example: 'subscription' }) referrer_type!: string;
  @ApiProperty({ example: '0193a5c2-9c3d-7e4f-8a5b-6c7d8e9fa0b1' }) referrer_id!: string;
  @ApiProperty({ example: WHEN }) created_at!: Date;
}

export class VersionReferrerListDto {
  @ApiProperty({ type: [VersionReferrerDto] }) data!: VersionReferrerDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

class ReferrerCountsDto {
  @ApiProperty({ example: 120, description: 'Subscriptions on this version, any status.' }) subscription!: number;
  @ApiProperty({ example: 1, description: 'Changes that staged or produced this version.' }) change!: number;
}

export class VersionUsageDto {
  @ApiProperty({ type: ReferrerCountsDto }) referrer_counts!: ReferrerCountsDto;
}

export class RepublishPlansDto {
  @ApiProperty({
    type: [String],
    example: [PLAN_ID],
    description: '1 to 100 distinct plan ids; each plan is republished in its own transaction, in this order.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  plan_ids!: string[];
}

class RepublishErrorDto {
  @ApiProperty({ example: 'PUBLISH_ENTITY_ARCHIVED' }) code!: string;
  @ApiProperty({ example: 'The plan is archived; nothing of it can go live.' }) message!: string;
}

export class RepublishOutcomeDto {
  @ApiProperty({ example: PLAN_ID }) plan_id!: string;
  @ApiProperty({ enum: ['republished', 'unchanged', 'failed'], example: 'republished' }) status!: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 4,
    description: 'The live version’s number after the call; null when failed or never published.',
  })
  version!: number | null;
  @ApiProperty({ type: RepublishErrorDto, nullable: true, example: null }) error!: RepublishErrorDto | null;
}

export class RepublishPlansResultDto {
  @ApiProperty({ type: [RepublishOutcomeDto] }) data!: RepublishOutcomeDto[];
}

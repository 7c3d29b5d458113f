import { VERIFICATION_STATUSES, VERIFICATION_TYPES } from '@app/identity';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { IsTimestamp } from '../http/timestamp';

const STATUSES = [...VERIFICATION_STATUSES];
const TYPES = [...VERIFICATION_TYPES];

export class ListCustomerVerificationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) @IsOptional() @IsUUID() customer_id?: string;
  @ApiPropertyOptional({ enum: STATUSES, example: 'pending' }) @IsOptional() @IsIn(STATUSES) status?: string;
  @ApiPropertyOptional({ enum: TYPES, example: 'kyc' }) @IsOptional() @IsIn(TYPES) verification_type?: string;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'created_at ≥ this (RFC 3339).' })
  @IsOptional()
  @IsTimestamp()
  occurred_after?: Date;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'created_at < this (RFC 3339).' })
  @IsOptional()
  @IsTimestamp()
  occurred_before?: Date;
}

/** A verification as lists show it; the provider's details and result come with the detail read. */
export class CustomerVerificationSummaryDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0a' }) id!: string;
  @ApiProperty({ example: 'customer_verification' }) object!: 'customer_verification';
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) customer_id!: string;
  @ApiProperty({ enum: STATUSES, example: 'verified' }) status!: string;
  @ApiProperty({ enum: TYPES, example: 'kyc' }) verification_type!: string;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) created_at!: string;
}

export class CustomerVerificationDto extends CustomerVerificationSummaryDto {
  @ApiProperty({ example: 'sandbox', description: 'The provider that performs the check.' }) provider!: string;
  @ApiProperty({ example: 'vs_sandbox_5f1c9e2a7b3d4c6e8f0a1b2c', description: 'The provider’s reference of the check.' })
  provider_reference!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The provider’s last applied result, exactly as it sent it; null before any.',
    example: {
      id: 'evt_3f9a1c7e',
      type: 'check.updated',
      occurred_at: '2026-11-22T10:17:02.000Z',
      data: { reference: 'vs_sandbox_5f1c9e2a7b3d4c6e8f0a1b2c', status: 'approved', expires_at: '2027-11-22T10:17:02.000Z' },
    },
  })
  provider_result!: Record<string, unknown> | null;
  @ApiProperty({ example: '2026-11-22T10:17:02.000Z' }) updated_at!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-22T10:17:02.000Z',
    description: 'When the check last reached verified, failed or expired; null while pending, manual or in maintenance.',
  })
  completed_at!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2027-11-22T10:17:02.000Z',
    description: 'When a verified check lapses (it then becomes expired).',
  })
  expires_at!: string | null;
}

export class CustomerVerificationListDto {
  @ApiProperty({ type: [CustomerVerificationSummaryDto] }) data!: CustomerVerificationSummaryDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export class OverrideVerificationStatusDto {
  @ApiProperty({
    enum: STATUSES,
    example: 'manual',
    description:
      'Permitted: pending → any; verified → expired, manual, pending; failed or expired → pending, manual; ' +
      'manual → verified, failed, pending; maintenance → pending, verified, failed, manual. The same status changes nothing.',
  })
  @IsIn(STATUSES)
  status!: string;
}

export class CreateSandboxVerificationDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04', description: 'A customer of the sandbox workspace.' })
  @IsUUID()
  customer_id!: string;
  @ApiProperty({ enum: TYPES, example: 'kyc' }) @IsIn(TYPES) verification_type!: string;
  @ApiPropertyOptional({ enum: STATUSES, default: 'pending', example: 'verified' })
  @IsOptional()
  @IsIn(STATUSES)
  status?: string;
  @ApiPropertyOptional({
    type: String,
    example: '2027-11-22T10:17:02Z',
    description: 'In the future; a verified check becomes expired then.',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: Date;
}

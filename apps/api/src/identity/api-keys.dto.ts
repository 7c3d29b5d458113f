import { ALL_SCOPES, apiKeyResponse, ApiKeyView } from '@app/identity';
import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { PaginationDto } from '../http/list-query.dto';
import { IsTimestamp } from '../http/timestamp';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'Billing worker', description: 'Trimmed; 1–200 characters.' })
  @IsString()
  name!: string;

  @ApiProperty({
    example: ['wallets:read', 'wallets:write'],
    description: 'At least one; each must be held by the caller.',
    enum: ALL_SCOPES,
    isArray: true,
  })
  @IsArray()
  scopes!: unknown[];

  @ApiPropertyOptional({
    example: ['203.0.113.0/24', '2001:db8::1'],
    description:
      'Addresses or CIDR blocks; empty means unrestricted. Omitted: the minting key’s own list (a session: unrestricted). ' +
      'A list wider than the minting key’s is refused (403 IP_RANGE_NOT_GRANTABLE).',
  })
  @IsOptional()
  @IsArray()
  allowed_ips?: unknown[];

  @ApiPropertyOptional({
    example: '2027-01-01T00:00:00Z',
    description:
      'Omitted: the minting key’s own expiry (a session: non-expiring). Later than the minting key’s expiry is refused ' +
      '(403 EXPIRY_NOT_GRANTABLE).',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: Date;

  @ApiPropertyOptional({
    enum: ['sk_live', 'sk_test'],
    example: 'sk_test',
    description:
      'Omitted: the workspace mode decides (live: sk_live, sandbox: sk_test). A live principal may ask for sk_test ' +
      '(a key for test data only, with scopes it holds itself); a sandbox principal asking for sk_live gets 403 ' +
      'KEY_TYPE_NOT_GRANTABLE. Rotation keeps the type.',
  })
  @IsOptional()
  @IsIn(['sk_live', 'sk_test'])
  key_type?: 'sk_live' | 'sk_test';
}

/** Merge-patch: an absent or null field is left as it is; there is no way to clear one. */
export class UpdateApiKeyDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Billing worker (EU)',
    description: 'Trimmed; 1–200 characters. Absent or null: unchanged.',
  })
  @IsOptional()
  @IsString()
  name?: string | null;

  @ApiPropertyOptional({
    type: String,
    example: ['wallets:read'],
    description:
      'Replaces the key’s scopes: at least one, each held by the caller (else 403 SCOPE_NOT_GRANTABLE, as on create). ' +
      'A removed scope is refused on every instance within a second. Absent or null: unchanged.',
    enum: ALL_SCOPES,
    isArray: true,
    nullable: true,
  })
  @IsOptional()
  @IsArray()
  scopes?: unknown[] | null;

  @ApiPropertyOptional({
    type: String,
    example: ['203.0.113.0/24'],
    description:
      'Replaces the key’s addresses or CIDR blocks; empty means unrestricted. Within the calling key’s own list (a ' +
      'session: any), else 403 IP_RANGE_NOT_GRANTABLE. Absent or null: unchanged.',
    isArray: true,
    nullable: true,
  })
  @IsOptional()
  @IsArray()
  allowed_ips?: unknown[] | null;
}

export class ApiKeyDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d' }) id!: string;
  @ApiProperty({ example: 'api_key' }) object!: 'api_key';
  @ApiProperty({ example: 'Billing worker' }) name!: string;
  @ApiProperty({ example: 'sk_live_4eC3' }) prefix!: string;
  @ApiProperty({ enum: ['sk_live', 'sk_test'], example: 'sk_live' }) key_type!: string;
  @ApiProperty({ example: ['wallets:read'] }) scopes!: string[];
  @ApiProperty({ example: ['203.0.113.0/24'] }) allowed_ips!: string[];
  @ApiProperty({ type: String, nullable: true, example: '2027-01-01T00:00:00.000Z' }) expires_at!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-22T14:03:11.000Z' }) last_used_at!: string | null;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) created_at!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) revoked_at!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'When a rotated key stops working.' }) revokes_at!:
    string | null;
  @ApiProperty({ enum: ['active', 'expired', 'revoked'], example: 'active' }) status!: string;
}

export class ApiKeyWithSecretDto extends ApiKeyDto {
  @ApiProperty({ example: 'sk_live_…', description: 'Shown once, in this response only.' }) secret!: string;
}

class RotatedFromDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7c' }) id!: string;
  @ApiProperty({ example: '2026-11-23T12:00:00.000Z' }) revokes_at!: string;
}

export class RotatedApiKeyDto extends ApiKeyWithSecretDto {
  @ApiProperty({ type: RotatedFromDto }) rotated_from!: RotatedFromDto;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] }) data!: ApiKeyDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export function toApiKeyDto(key: ApiKeyView): ApiKeyDto {
  return apiKeyResponse(key);
}

import { ApiSchema } from '@nestjs/swagger';
import { ApiProperty, ApiPropertyOptional } from './api-property';

export class FieldErrorDto {
  @ApiProperty({ example: 'amount' }) param!: string;
  @ApiProperty({ example: 'INVALID_FORMAT' }) code!: string;
  @ApiProperty({ example: 'amount must be a decimal string such as "10.50"' }) message!: string;
}

export class ErrorDetailDto {
  @ApiProperty({
    enum: [
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'conflict_error',
      'idempotency_error',
      'business_rule_error',
      'payment_error',
      'rate_limit_error',
      'api_error',
    ],
    example: 'invalid_request_error',
  })
  type!: string;
  @ApiProperty({ example: 'VALIDATION_ERROR', description: 'Stable UPPER_SNAKE machine code.' }) code!: string;
  @ApiProperty({ example: 'amount must be a decimal string such as "10.50"' }) message!: string;
  @ApiPropertyOptional({ example: 'amount' }) param?: string;
  @ApiProperty({ example: 400 }) status!: number;
  @ApiProperty({ example: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69' }) request_id!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { current_version: 4 } })
  details?: Record<string, unknown>;
  @ApiPropertyOptional({ type: [FieldErrorDto] }) errors?: FieldErrorDto[];
}

/** Published as `ErrorBody`, the name the document's description and every error response use. */
@ApiSchema({ name: 'ErrorBody' })
export class ErrorBodyDto {
  @ApiProperty({ type: ErrorDetailDto }) error!: ErrorDetailDto;
}

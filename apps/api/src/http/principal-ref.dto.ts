import { ApiProperty } from './api-property';

/** Who acted: an API key, a user, or the system (scheduled work, with a null id). */
export class PrincipalRefDto {
  @ApiProperty({ enum: ['api_key', 'user', 'system'], example: 'api_key' }) type!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d',
    description: 'Null for the system.',
  })
  id!: string | null;
}

import { invalidParameter } from '@app/shared-kernel';
import {
  isVerificationStatus,
  isVerificationType,
  VerificationStatus,
  VerificationType,
} from '../../domain/customer-verification';

export function statusOf(value: unknown): VerificationStatus {
  if (!isVerificationStatus(value)) {
    throw invalidParameter(
      'status',
      'INVALID_VALUE',
      'status must be one of pending, verified, expired, failed, manual, maintenance.',
    );
  }
  return value;
}

export function typeOf(value: unknown): VerificationType {
  if (!isVerificationType(value)) {
    throw invalidParameter(
      'verification_type',
      'INVALID_VALUE',
      'verification_type must be one of kyc, kyb, age, business_entity, vat.',
    );
  }
  return value;
}

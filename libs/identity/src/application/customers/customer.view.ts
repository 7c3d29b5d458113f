import { CustomerState } from '../../domain/customer';

/** A customer as answered: `primaryWalletId` is its current primary wallet (opened with it). */
export type CustomerView = Omit<CustomerState, 'organizationId'> & { primaryWalletId: string };

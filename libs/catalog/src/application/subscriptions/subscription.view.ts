export interface VersionRefView {
  id: string;
  version: number;
}

export interface SubscriptionView {
  object: 'subscription';
  id: string;
  customer_id: string;
  plan_id: string;
  plan_version: VersionRefView;
  status: 'active' | 'canceled';
  billing_cadence: string;
  plan_track_mode: string;
  version_change_strategy: string;
  product_pins: { product_id: string; product_version_id: string }[];
  holds_pin: boolean;
  current_period_start: Date;
  current_period_end: Date;
  created_at: Date;
  updated_at: Date;
  canceled_at: Date | null;
}

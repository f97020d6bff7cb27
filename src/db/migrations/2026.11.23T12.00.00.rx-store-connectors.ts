import type { QueryInterface } from 'sequelize';

// Issue 12, rxpartner and storepartner connectors: tokens shared by every worker process (owner:
// connectors), webhook nonces kept against replays (owner: connectors), the partner's id of a
// customer's patient (owner: org, where issue 13's ensure_patient finds it), and the manual
// follow-up a partner event can ask of operations (partner_orders.follow_up).
const UP = `
-- A partner's access token (rxpartner's OAuth JWT), one per partner account, Cipher ciphertext;
-- every process uses it until 30 s before it expires, and one of them refreshes it.
CREATE TABLE partner_tokens (
  cache_key text PRIMARY KEY,
  partner text NOT NULL,
  token_enc text NOT NULL,
  -- sha256 of the token: a 401 drops the token only while it is still the one that failed
  token_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Nonces of signed partner webhooks (rxpartner) seen lately: a delivery that reuses one has no effect.
CREATE TABLE partner_webhook_nonces (
  partner text NOT NULL,
  nonce text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (partner, nonce)
);
CREATE INDEX partner_webhook_nonces_expiry_idx ON partner_webhook_nonces (expires_at);

-- The partner's id of a customer's patient. patient_key is an opaque HMAC of the patient's identity
-- (never patient data); '' stands for the Customer itself (issue 13's ensure_patient).
CREATE TABLE customer_partner_patients (
  customer text NOT NULL REFERENCES customers(name),
  partner text NOT NULL,
  patient_key text NOT NULL,
  partner_patient_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'active', 'failed')),
  detail text,
  sales_order text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (customer, partner, patient_key)
);
CREATE INDEX customer_partner_patients_id_idx ON customer_partner_patients (partner, partner_patient_id);

ALTER TABLE partner_orders ADD COLUMN follow_up text;
`;

const DOWN = `
ALTER TABLE partner_orders DROP COLUMN IF EXISTS follow_up;
DROP TABLE IF EXISTS customer_partner_patients, partner_webhook_nonces, partner_tokens;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}

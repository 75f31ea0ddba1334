CREATE TABLE invoices (
    id          BIGSERIAL PRIMARY KEY,
    customer    TEXT NOT NULL,
    issued_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE line_items (
    id          BIGSERIAL PRIMARY KEY,
    invoice_id  BIGINT NOT NULL REFERENCES invoices (id),
    description TEXT NOT NULL,
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    unit_cents  BIGINT NOT NULL
);

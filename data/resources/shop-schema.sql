-- Brightgrid shop database, schema version 12 (read-only view for assistants)
CREATE TABLE customers (
  id          TEXT PRIMARY KEY,          -- e.g. 'fixture-17'
  name        TEXT NOT NULL,
  email       TEXT NOT NULL,
  tier        TEXT CHECK (tier IN ('standard', 'plus')),
  created_at  TIMESTAMP NOT NULL
);

CREATE TABLE orders (
  id          TEXT PRIMARY KEY,          -- e.g. 'A-1001'
  customer_id TEXT NOT NULL REFERENCES customers(id),
  status      TEXT CHECK (status IN ('paid', 'shipped', 'delivered', 'returned')),
  total_cents INTEGER NOT NULL,
  currency    TEXT NOT NULL DEFAULT 'EUR',
  placed_at   TIMESTAMP NOT NULL
);

CREATE TABLE order_items (
  order_id    TEXT NOT NULL REFERENCES orders(id),
  sku         TEXT NOT NULL,
  quantity    INTEGER NOT NULL CHECK (quantity > 0),
  unit_cents  INTEGER NOT NULL,
  PRIMARY KEY (order_id, sku)
);

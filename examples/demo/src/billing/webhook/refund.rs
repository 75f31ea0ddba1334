//! `charge.refunded` events: a refund becomes a negative line item on the invoice.

use crate::billing::invoice::{Invoice, LineItem};

pub fn apply_refund(invoice: &mut Invoice, amount_cents: i64, reason: &str) {
    invoice.items.push(LineItem {
        description: format!("Refund: {reason}"),
        quantity: 1,
        unit_cents: -amount_cents,
    });
}

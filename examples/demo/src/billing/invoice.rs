//! Invoices and their line items. Amounts are integer cents; totals are computed on read.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineItem {
    pub description: String,
    pub quantity: u32,
    pub unit_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoice {
    pub id: u64,
    pub customer: String,
    pub items: Vec<LineItem>,
}

impl Invoice {
    /// The invoice total in cents; refunds are negative line items.
    pub fn total_cents(&self) -> i64 {
        self.items
            .iter()
            .map(|item| i64::from(item.quantity) * item.unit_cents)
            .sum()
    }
}

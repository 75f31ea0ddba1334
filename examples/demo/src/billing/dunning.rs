//! Reminder emails for overdue invoices (blocked: waiting for SMTP credentials).

/// Days after the due date at which a reminder goes out.
pub const REMINDER_DAYS: [u32; 3] = [3, 10, 30];

pub fn subject(invoice_id: u64, days_overdue: u32) -> String {
    format!("Invoice {invoice_id} is {days_overdue} days overdue")
}

SELECT merchant_id, SUM(amount) AS spend_1h, COUNT(*) AS receipts_1h
FROM source('receipts')
GROUP BY merchant_id

SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS payments
FROM source('payments')
GROUP BY merchant_id

SELECT merchant_id, SUM(amont) AS revenue, COUNT(*) AS payments
FROM source('payments')
GROUP BY merchant_id

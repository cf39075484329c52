SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders
FROM source('sales')
GROUP BY merchant_id

SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('orders') GROUP BY merchant_id

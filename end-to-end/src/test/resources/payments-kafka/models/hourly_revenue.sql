SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('payments') GROUP BY merchant_id

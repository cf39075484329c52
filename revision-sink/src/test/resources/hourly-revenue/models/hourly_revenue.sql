SELECT merchant_id, SUM(amount) AS revenue FROM source('payments') GROUP BY merchant_id

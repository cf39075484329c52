SELECT customer_id, SUM(amount) AS revenue FROM source('orders') GROUP BY customer_id

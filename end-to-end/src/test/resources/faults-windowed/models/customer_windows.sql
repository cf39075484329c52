SELECT customer_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('orders') GROUP BY customer_id

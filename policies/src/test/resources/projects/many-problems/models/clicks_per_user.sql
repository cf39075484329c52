SELECT user_id, COUNT(*) AS clicks FROM source('clicks') GROUP BY user_id

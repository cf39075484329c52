SELECT page, SUM(n) AS total FROM source('clicks') GROUP BY page

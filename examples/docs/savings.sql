-- Savings per repository and command across the team: every machine's export, any mix
-- of Parquet and JSONL (same columns), read where they lie (a folder, or s3://…).
WITH team AS (
    SELECT * FROM read_parquet('exports/*.parquet')
    UNION ALL BY NAME
    SELECT * FROM read_json('exports/*.jsonl')
)
SELECT
    repository,
    tool,
    split_part(command, ' ', 1) AS command,
    count(*) AS deliveries,
    count(DISTINCT machine) AS machines,
    sum(raw_tokens) AS raw_tokens,
    sum(delivered_tokens) AS delivered_tokens,
    sum(saved_tokens) AS saved_tokens,
    round(100 * sum(saved_tokens) / sum(raw_tokens), 1) AS saved_pct
FROM team
GROUP BY ALL
ORDER BY saved_tokens DESC NULLS LAST, repository, tool, command;

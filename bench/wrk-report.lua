-- wrk's totals as one JSON line, read by bench/wrk-load.ts: requests, the measured time, errors
-- (status: answers that were neither 2xx nor 3xx) and latency percentiles, in microseconds.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,"p50Us":%.0f,"p99Us":%.0f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end

/* {{provider}}:{{probe}} */
int kd_record_{{index}}(struct pt_regs *ctx)
{
    struct kd_record *r = record_start({{index}});
    if (!r)
        return 0;
{{> reads}}
    records.ringbuf_submit(r, 0);
    return 0;
}


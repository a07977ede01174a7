    {
        {{ctype}} p = 0;
        bpf_usdt_readarg({{arg}}, ctx, &p);
        bpf_probe_read_user_str(&r->strs[{{slot}}], KD_RECORD_STR_LEN, (void *)p);
    }

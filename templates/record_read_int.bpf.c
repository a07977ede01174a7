    {
        {{ctype}} v = 0;
        bpf_usdt_readarg({{arg}}, ctx, &v);
        r->ints[{{slot}}] = v;
    }

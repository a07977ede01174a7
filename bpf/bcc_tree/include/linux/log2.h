/* BCC sizes its stack-trace maps with roundup_pow_of_two(), which must stay
 * a constant expression for a map's initializer. */
#define roundup_pow_of_two(n) \
    ((unsigned long)(n) <= 1 ? 1UL : 1UL << (64 - __builtin_clzll((unsigned long)(n) - 1)))

/* add.c */
#include <dispatch_core.h>
#include <stdio.h>

static int64_t scale(void *context, int64_t value, double factor) {
    (void)context;
    return (int64_t)((double)value * factor);
}

int main(void) {
    dc_signature *signature;
    if (dc_signature_create("q^vqd", &signature) != DC_OK) {
        fprintf(stderr, "%s\n", dc_last_error_message());
        return 1;
    }
    dc_value arguments[] = { dc_pointer(NULL), dc_int64(21), dc_double(2.0) };
    dc_value result;
    if (dc_call(signature, DC_FUNCTION(scale), arguments, 3, &result) != DC_OK) {
        fprintf(stderr, "%s\n", dc_last_error_message());
        return 1;
    }
    printf("%lld\n", (long long)result.i64); /* 42 */
    dc_signature_release(signature);
    return 0;
}

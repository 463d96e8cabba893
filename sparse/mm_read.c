/* Matrix Market reader (docs/matrix-market.md).
 *
 * The file is read in large chunks (4 MiB, or the whole file when smaller)
 * and parsed with a hand-written pointer walk: every chunk handed to the
 * scanner ends with a '\n' (a sentinel one is appended after a last line
 * without it), so the scanners need no end checks inside a line. Integers
 * are parsed by hand; doubles with Clinger's fast path, then the
 * Eisel-Lemire algorithm, then strtod for what neither decides, so that every
 * value is bit-identical to strtod's. Entries go to coordinate arrays and then
 * through cgm_csr_from_coo (sorts rows, sums duplicates).
 *
 * Every error names the file and the line: "path:LINE: message". */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "sparse/mm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ============================================================ numbers === */

static inline bool is_digit(unsigned char c) {
  return (unsigned)(c - '0') < 10u;
}

/* Separators inside a line. '\r' counts as blank so CRLF files read. */
static inline bool is_blank(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Where a token may end: a blank, the end of the line or a NUL (the writer's
 * and the test's NUL-terminated strings). */
static inline bool is_tok_end(unsigned char c) {
  return is_blank(c) || c == '\n' || c == '\0';
}

static inline int lower_ascii(int c) {
  return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* 10^0 .. 10^22: exactly representable in a double. */
static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 128-bit approximations of 5^q for q = -342 .. 308, the most significant
 * bit set: truncated for q >= 0, rounded up for q < 0 (Lemire, "Number
 * Parsing at a Gigabyte per Second", 2021; the table of the fast_float
 * library, regenerated with exact integer arithmetic). */
#define POW5_MIN (-342)
#define POW5_MAX 308
static const uint64_t pow5_128[2 * (POW5_MAX - POW5_MIN + 1)] = {
    UINT64_C(0xeef453d6923bd65a), UINT64_C(0x113faa2906a13b3f), /* 5^-342 */
    UINT64_C(0x9558b4661b6565f8), UINT64_C(0x4ac7ca59a424c507), /* 5^-341 */
    UINT64_C(0xbaaee17fa23ebf76), UINT64_C(0x5d79bcf00d2df649), /* 5^-340 */
    UINT64_C(0xe95a99df8ace6f53), UINT64_C(0xf4d82c2c107973dc), /* 5^-339 */
    UINT64_C(0x91d8a02bb6c10594), UINT64_C(0x79071b9b8a4be869), /* 5^-338 */
    UINT64_C(0xb64ec836a47146f9), UINT64_C(0x9748e2826cdee284), /* 5^-337 */
    UINT64_C(0xe3e27a444d8d98b7), UINT64_C(0xfd1b1b2308169b25), /* 5^-336 */
    UINT64_C(0x8e6d8c6ab0787f72), UINT64_C(0xfe30f0f5e50e20f7), /* 5^-335 */
    UINT64_C(0xb208ef855c969f4f), UINT64_C(0xbdbd2d335e51a935), /* 5^-334 */
    UINT64_C(0xde8b2b66b3bc4723), UINT64_C(0xad2c788035e61382), /* 5^-333 */
    UINT64_C(0x8b16fb203055ac76), UINT64_C(0x4c3bcb5021afcc31), /* 5^-332 */
    UINT64_C(0xaddcb9e83c6b1793), UINT64_C(0xdf4abe242a1bbf3d), /* 5^-331 */
    UINT64_C(0xd953e8624b85dd78), UINT64_C(0xd71d6dad34a2af0d), /* 5^-330 */
    UINT64_C(0x87d4713d6f33aa6b), UINT64_C(0x8672648c40e5ad68), /* 5^-329 */
    UINT64_C(0xa9c98d8ccb009506), UINT64_C(0x680efdaf511f18c2), /* 5^-328 */
    UINT64_C(0xd43bf0effdc0ba48), UINT64_C(0x0212bd1b2566def2), /* 5^-327 */
    UINT64_C(0x84a57695fe98746d), UINT64_C(0x014bb630f7604b57), /* 5^-326 */
    UINT64_C(0xa5ced43b7e3e9188), UINT64_C(0x419ea3bd35385e2d), /* 5^-325 */
    UINT64_C(0xcf42894a5dce35ea), UINT64_C(0x52064cac828675b9), /* 5^-324 */
    UINT64_C(0x818995ce7aa0e1b2), UINT64_C(0x7343efebd1940993), /* 5^-323 */
    UINT64_C(0xa1ebfb4219491a1f), UINT64_C(0x1014ebe6c5f90bf8), /* 5^-322 */
    UINT64_C(0xca66fa129f9b60a6), UINT64_C(0xd41a26e077774ef6), /* 5^-321 */
    UINT64_C(0xfd00b897478238d0), UINT64_C(0x8920b098955522b4), /* 5^-320 */
    UINT64_C(0x9e20735e8cb16382), UINT64_C(0x55b46e5f5d5535b0), /* 5^-319 */
    UINT64_C(0xc5a890362fddbc62), UINT64_C(0xeb2189f734aa831d), /* 5^-318 */
    UINT64_C(0xf712b443bbd52b7b), UINT64_C(0xa5e9ec7501d523e4), /* 5^-317 */
    UINT64_C(0x9a6bb0aa55653b2d), UINT64_C(0x47b233c92125366e), /* 5^-316 */
    UINT64_C(0xc1069cd4eabe89f8), UINT64_C(0x999ec0bb696e840a), /* 5^-315 */
    UINT64_C(0xf148440a256e2c76), UINT64_C(0xc00670ea43ca250d), /* 5^-314 */
    UINT64_C(0x96cd2a865764dbca), UINT64_C(0x380406926a5e5728), /* 5^-313 */
    UINT64_C(0xbc807527ed3e12bc), UINT64_C(0xc605083704f5ecf2), /* 5^-312 */
    UINT64_C(0xeba09271e88d976b), UINT64_C(0xf7864a44c633682e), /* 5^-311 */
    UINT64_C(0x93445b8731587ea3), UINT64_C(0x7ab3ee6afbe0211d), /* 5^-310 */
    UINT64_C(0xb8157268fdae9e4c), UINT64_C(0x5960ea05bad82964), /* 5^-309 */
    UINT64_C(0xe61acf033d1a45df), UINT64_C(0x6fb92487298e33bd), /* 5^-308 */
    UINT64_C(0x8fd0c16206306bab), UINT64_C(0xa5d3b6d479f8e056), /* 5^-307 */
    UINT64_C(0xb3c4f1ba87bc8696), UINT64_C(0x8f48a4899877186c), /* 5^-306 */
    UINT64_C(0xe0b62e2929aba83c), UINT64_C(0x331acdabfe94de87), /* 5^-305 */
    UINT64_C(0x8c71dcd9ba0b4925), UINT64_C(0x9ff0c08b7f1d0b14), /* 5^-304 */
    UINT64_C(0xaf8e5410288e1b6f), UINT64_C(0x07ecf0ae5ee44dd9), /* 5^-303 */
    UINT64_C(0xdb71e91432b1a24a), UINT64_C(0xc9e82cd9f69d6150), /* 5^-302 */
    UINT64_C(0x892731ac9faf056e), UINT64_C(0xbe311c083a225cd2), /* 5^-301 */
    UINT64_C(0xab70fe17c79ac6ca), UINT64_C(0x6dbd630a48aaf406), /* 5^-300 */
    UINT64_C(0xd64d3d9db981787d), UINT64_C(0x092cbbccdad5b108), /* 5^-299 */
    UINT64_C(0x85f0468293f0eb4e), UINT64_C(0x25bbf56008c58ea5), /* 5^-298 */
    UINT64_C(0xa76c582338ed2621), UINT64_C(0xaf2af2b80af6f24e), /* 5^-297 */
    UINT64_C(0xd1476e2c07286faa), UINT64_C(0x1af5af660db4aee1), /* 5^-296 */
    UINT64_C(0x82cca4db847945ca), UINT64_C(0x50d98d9fc890ed4d), /* 5^-295 */
    UINT64_C(0xa37fce126597973c), UINT64_C(0xe50ff107bab528a0), /* 5^-294 */
    UINT64_C(0xcc5fc196fefd7d0c), UINT64_C(0x1e53ed49a96272c8), /* 5^-293 */
    UINT64_C(0xff77b1fcbebcdc4f), UINT64_C(0x25e8e89c13bb0f7a), /* 5^-292 */
    UINT64_C(0x9faacf3df73609b1), UINT64_C(0x77b191618c54e9ac), /* 5^-291 */
    UINT64_C(0xc795830d75038c1d), UINT64_C(0xd59df5b9ef6a2417), /* 5^-290 */
    UINT64_C(0xf97ae3d0d2446f25), UINT64_C(0x4b0573286b44ad1d), /* 5^-289 */
    UINT64_C(0x9becce62836ac577), UINT64_C(0x4ee367f9430aec32), /* 5^-288 */
    UINT64_C(0xc2e801fb244576d5), UINT64_C(0x229c41f793cda73f), /* 5^-287 */
    UINT64_C(0xf3a20279ed56d48a), UINT64_C(0x6b43527578c1110f), /* 5^-286 */
    UINT64_C(0x9845418c345644d6), UINT64_C(0x830a13896b78aaa9), /* 5^-285 */
    UINT64_C(0xbe5691ef416bd60c), UINT64_C(0x23cc986bc656d553), /* 5^-284 */
    UINT64_C(0xedec366b11c6cb8f), UINT64_C(0x2cbfbe86b7ec8aa8), /* 5^-283 */
    UINT64_C(0x94b3a202eb1c3f39), UINT64_C(0x7bf7d71432f3d6a9), /* 5^-282 */
    UINT64_C(0xb9e08a83a5e34f07), UINT64_C(0xdaf5ccd93fb0cc53), /* 5^-281 */
    UINT64_C(0xe858ad248f5c22c9), UINT64_C(0xd1b3400f8f9cff68), /* 5^-280 */
    UINT64_C(0x91376c36d99995be), UINT64_C(0x23100809b9c21fa1), /* 5^-279 */
    UINT64_C(0xb58547448ffffb2d), UINT64_C(0xabd40a0c2832a78a), /* 5^-278 */
    UINT64_C(0xe2e69915b3fff9f9), UINT64_C(0x16c90c8f323f516c), /* 5^-277 */
    UINT64_C(0x8dd01fad907ffc3b), UINT64_C(0xae3da7d97f6792e3), /* 5^-276 */
    UINT64_C(0xb1442798f49ffb4a), UINT64_C(0x99cd11cfdf41779c), /* 5^-275 */
    UINT64_C(0xdd95317f31c7fa1d), UINT64_C(0x40405643d711d583), /* 5^-274 */
    UINT64_C(0x8a7d3eef7f1cfc52), UINT64_C(0x482835ea666b2572), /* 5^-273 */
    UINT64_C(0xad1c8eab5ee43b66), UINT64_C(0xda3243650005eecf), /* 5^-272 */
    UINT64_C(0xd863b256369d4a40), UINT64_C(0x90bed43e40076a82), /* 5^-271 */
    UINT64_C(0x873e4f75e2224e68), UINT64_C(0x5a7744a6e804a291), /* 5^-270 */
    UINT64_C(0xa90de3535aaae202), UINT64_C(0x711515d0a205cb36), /* 5^-269 */
    UINT64_C(0xd3515c2831559a83), UINT64_C(0x0d5a5b44ca873e03), /* 5^-268 */
    UINT64_C(0x8412d9991ed58091), UINT64_C(0xe858790afe9486c2), /* 5^-267 */
    UINT64_C(0xa5178fff668ae0b6), UINT64_C(0x626e974dbe39a872), /* 5^-266 */
    UINT64_C(0xce5d73ff402d98e3), UINT64_C(0xfb0a3d212dc8128f), /* 5^-265 */
    UINT64_C(0x80fa687f881c7f8e), UINT64_C(0x7ce66634bc9d0b99), /* 5^-264 */
    UINT64_C(0xa139029f6a239f72), UINT64_C(0x1c1fffc1ebc44e80), /* 5^-263 */
    UINT64_C(0xc987434744ac874e), UINT64_C(0xa327ffb266b56220), /* 5^-262 */
    UINT64_C(0xfbe9141915d7a922), UINT64_C(0x4bf1ff9f0062baa8), /* 5^-261 */
    UINT64_C(0x9d71ac8fada6c9b5), UINT64_C(0x6f773fc3603db4a9), /* 5^-260 */
    UINT64_C(0xc4ce17b399107c22), UINT64_C(0xcb550fb4384d21d3), /* 5^-259 */
    UINT64_C(0xf6019da07f549b2b), UINT64_C(0x7e2a53a146606a48), /* 5^-258 */
    UINT64_C(0x99c102844f94e0fb), UINT64_C(0x2eda7444cbfc426d), /* 5^-257 */
    UINT64_C(0xc0314325637a1939), UINT64_C(0xfa911155fefb5308), /* 5^-256 */
    UINT64_C(0xf03d93eebc589f88), UINT64_C(0x793555ab7eba27ca), /* 5^-255 */
    UINT64_C(0x96267c7535b763b5), UINT64_C(0x4bc1558b2f3458de), /* 5^-254 */
    UINT64_C(0xbbb01b9283253ca2), UINT64_C(0x9eb1aaedfb016f16), /* 5^-253 */
    UINT64_C(0xea9c227723ee8bcb), UINT64_C(0x465e15a979c1cadc), /* 5^-252 */
    UINT64_C(0x92a1958a7675175f), UINT64_C(0x0bfacd89ec191ec9), /* 5^-251 */
    UINT64_C(0xb749faed14125d36), UINT64_C(0xcef980ec671f667b), /* 5^-250 */
    UINT64_C(0xe51c79a85916f484), UINT64_C(0x82b7e12780e7401a), /* 5^-249 */
    UINT64_C(0x8f31cc0937ae58d2), UINT64_C(0xd1b2ecb8b0908810), /* 5^-248 */
    UINT64_C(0xb2fe3f0b8599ef07), UINT64_C(0x861fa7e6dcb4aa15), /* 5^-247 */
    UINT64_C(0xdfbdcece67006ac9), UINT64_C(0x67a791e093e1d49a), /* 5^-246 */
    UINT64_C(0x8bd6a141006042bd), UINT64_C(0xe0c8bb2c5c6d24e0), /* 5^-245 */
    UINT64_C(0xaecc49914078536d), UINT64_C(0x58fae9f773886e18), /* 5^-244 */
    UINT64_C(0xda7f5bf590966848), UINT64_C(0xaf39a475506a899e), /* 5^-243 */
    UINT64_C(0x888f99797a5e012d), UINT64_C(0x6d8406c952429603), /* 5^-242 */
    UINT64_C(0xaab37fd7d8f58178), UINT64_C(0xc8e5087ba6d33b83), /* 5^-241 */
    UINT64_C(0xd5605fcdcf32e1d6), UINT64_C(0xfb1e4a9a90880a64), /* 5^-240 */
    UINT64_C(0x855c3be0a17fcd26), UINT64_C(0x5cf2eea09a55067f), /* 5^-239 */
    UINT64_C(0xa6b34ad8c9dfc06f), UINT64_C(0xf42faa48c0ea481e), /* 5^-238 */
    UINT64_C(0xd0601d8efc57b08b), UINT64_C(0xf13b94daf124da26), /* 5^-237 */
    UINT64_C(0x823c12795db6ce57), UINT64_C(0x76c53d08d6b70858), /* 5^-236 */
    UINT64_C(0xa2cb1717b52481ed), UINT64_C(0x54768c4b0c64ca6e), /* 5^-235 */
    UINT64_C(0xcb7ddcdda26da268), UINT64_C(0xa9942f5dcf7dfd09), /* 5^-234 */
    UINT64_C(0xfe5d54150b090b02), UINT64_C(0xd3f93b35435d7c4c), /* 5^-233 */
    UINT64_C(0x9efa548d26e5a6e1), UINT64_C(0xc47bc5014a1a6daf), /* 5^-232 */
    UINT64_C(0xc6b8e9b0709f109a), UINT64_C(0x359ab6419ca1091b), /* 5^-231 */
    UINT64_C(0xf867241c8cc6d4c0), UINT64_C(0xc30163d203c94b62), /* 5^-230 */
    UINT64_C(0x9b407691d7fc44f8), UINT64_C(0x79e0de63425dcf1d), /* 5^-229 */
    UINT64_C(0xc21094364dfb5636), UINT64_C(0x985915fc12f542e4), /* 5^-228 */
    UINT64_C(0xf294b943e17a2bc4), UINT64_C(0x3e6f5b7b17b2939d), /* 5^-227 */
    UINT64_C(0x979cf3ca6cec5b5a), UINT64_C(0xa705992ceecf9c42), /* 5^-226 */
    UINT64_C(0xbd8430bd08277231), UINT64_C(0x50c6ff782a838353), /* 5^-225 */
    UINT64_C(0xece53cec4a314ebd), UINT64_C(0xa4f8bf5635246428), /* 5^-224 */
    UINT64_C(0x940f4613ae5ed136), UINT64_C(0x871b7795e136be99), /* 5^-223 */
    UINT64_C(0xb913179899f68584), UINT64_C(0x28e2557b59846e3f), /* 5^-222 */
    UINT64_C(0xe757dd7ec07426e5), UINT64_C(0x331aeada2fe589cf), /* 5^-221 */
    UINT64_C(0x9096ea6f3848984f), UINT64_C(0x3ff0d2c85def7621), /* 5^-220 */
    UINT64_C(0xb4bca50b065abe63), UINT64_C(0x0fed077a756b53a9), /* 5^-219 */
    UINT64_C(0xe1ebce4dc7f16dfb), UINT64_C(0xd3e8495912c62894), /* 5^-218 */
    UINT64_C(0x8d3360f09cf6e4bd), UINT64_C(0x64712dd7abbbd95c), /* 5^-217 */
    UINT64_C(0xb080392cc4349dec), UINT64_C(0xbd8d794d96aacfb3), /* 5^-216 */
    UINT64_C(0xdca04777f541c567), UINT64_C(0xecf0d7a0fc5583a0), /* 5^-215 */
    UINT64_C(0x89e42caaf9491b60), UINT64_C(0xf41686c49db57244), /* 5^-214 */
    UINT64_C(0xac5d37d5b79b6239), UINT64_C(0x311c2875c522ced5), /* 5^-213 */
    UINT64_C(0xd77485cb25823ac7), UINT64_C(0x7d633293366b828b), /* 5^-212 */
    UINT64_C(0x86a8d39ef77164bc), UINT64_C(0xae5dff9c02033197), /* 5^-211 */
    UINT64_C(0xa8530886b54dbdeb), UINT64_C(0xd9f57f830283fdfc), /* 5^-210 */
    UINT64_C(0xd267caa862a12d66), UINT64_C(0xd072df63c324fd7b), /* 5^-209 */
    UINT64_C(0x8380dea93da4bc60), UINT64_C(0x4247cb9e59f71e6d), /* 5^-208 */
    UINT64_C(0xa46116538d0deb78), UINT64_C(0x52d9be85f074e608), /* 5^-207 */
    UINT64_C(0xcd795be870516656), UINT64_C(0x67902e276c921f8b), /* 5^-206 */
    UINT64_C(0x806bd9714632dff6), UINT64_C(0x00ba1cd8a3db53b6), /* 5^-205 */
    UINT64_C(0xa086cfcd97bf97f3), UINT64_C(0x80e8a40eccd228a4), /* 5^-204 */
    UINT64_C(0xc8a883c0fdaf7df0), UINT64_C(0x6122cd128006b2cd), /* 5^-203 */
    UINT64_C(0xfad2a4b13d1b5d6c), UINT64_C(0x796b805720085f81), /* 5^-202 */
    UINT64_C(0x9cc3a6eec6311a63), UINT64_C(0xcbe3303674053bb0), /* 5^-201 */
    UINT64_C(0xc3f490aa77bd60fc), UINT64_C(0xbedbfc4411068a9c), /* 5^-200 */
    UINT64_C(0xf4f1b4d515acb93b), UINT64_C(0xee92fb5515482d44), /* 5^-199 */
    UINT64_C(0x991711052d8bf3c5), UINT64_C(0x751bdd152d4d1c4a), /* 5^-198 */
    UINT64_C(0xbf5cd54678eef0b6), UINT64_C(0xd262d45a78a0635d), /* 5^-197 */
    UINT64_C(0xef340a98172aace4), UINT64_C(0x86fb897116c87c34), /* 5^-196 */
    UINT64_C(0x9580869f0e7aac0e), UINT64_C(0xd45d35e6ae3d4da0), /* 5^-195 */
    UINT64_C(0xbae0a846d2195712), UINT64_C(0x8974836059cca109), /* 5^-194 */
    UINT64_C(0xe998d258869facd7), UINT64_C(0x2bd1a438703fc94b), /* 5^-193 */
    UINT64_C(0x91ff83775423cc06), UINT64_C(0x7b6306a34627ddcf), /* 5^-192 */
    UINT64_C(0xb67f6455292cbf08), UINT64_C(0x1a3bc84c17b1d542), /* 5^-191 */
    UINT64_C(0xe41f3d6a7377eeca), UINT64_C(0x20caba5f1d9e4a93), /* 5^-190 */
    UINT64_C(0x8e938662882af53e), UINT64_C(0x547eb47b7282ee9c), /* 5^-189 */
    UINT64_C(0xb23867fb2a35b28d), UINT64_C(0xe99e619a4f23aa43), /* 5^-188 */
    UINT64_C(0xdec681f9f4c31f31), UINT64_C(0x6405fa00e2ec94d4), /* 5^-187 */
    UINT64_C(0x8b3c113c38f9f37e), UINT64_C(0xde83bc408dd3dd04), /* 5^-186 */
    UINT64_C(0xae0b158b4738705e), UINT64_C(0x9624ab50b148d445), /* 5^-185 */
    UINT64_C(0xd98ddaee19068c76), UINT64_C(0x3badd624dd9b0957), /* 5^-184 */
    UINT64_C(0x87f8a8d4cfa417c9), UINT64_C(0xe54ca5d70a80e5d6), /* 5^-183 */
    UINT64_C(0xa9f6d30a038d1dbc), UINT64_C(0x5e9fcf4ccd211f4c), /* 5^-182 */
    UINT64_C(0xd47487cc8470652b), UINT64_C(0x7647c3200069671f), /* 5^-181 */
    UINT64_C(0x84c8d4dfd2c63f3b), UINT64_C(0x29ecd9f40041e073), /* 5^-180 */
    UINT64_C(0xa5fb0a17c777cf09), UINT64_C(0xf468107100525890), /* 5^-179 */
    UINT64_C(0xcf79cc9db955c2cc), UINT64_C(0x7182148d4066eeb4), /* 5^-178 */
    UINT64_C(0x81ac1fe293d599bf), UINT64_C(0xc6f14cd848405530), /* 5^-177 */
    UINT64_C(0xa21727db38cb002f), UINT64_C(0xb8ada00e5a506a7c), /* 5^-176 */
    UINT64_C(0xca9cf1d206fdc03b), UINT64_C(0xa6d90811f0e4851c), /* 5^-175 */
    UINT64_C(0xfd442e4688bd304a), UINT64_C(0x908f4a166d1da663), /* 5^-174 */
    UINT64_C(0x9e4a9cec15763e2e), UINT64_C(0x9a598e4e043287fe), /* 5^-173 */
    UINT64_C(0xc5dd44271ad3cdba), UINT64_C(0x40eff1e1853f29fd), /* 5^-172 */
    UINT64_C(0xf7549530e188c128), UINT64_C(0xd12bee59e68ef47c), /* 5^-171 */
    UINT64_C(0x9a94dd3e8cf578b9), UINT64_C(0x82bb74f8301958ce), /* 5^-170 */
    UINT64_C(0xc13a148e3032d6e7), UINT64_C(0xe36a52363c1faf01), /* 5^-169 */
    UINT64_C(0xf18899b1bc3f8ca1), UINT64_C(0xdc44e6c3cb279ac1), /* 5^-168 */
    UINT64_C(0x96f5600f15a7b7e5), UINT64_C(0x29ab103a5ef8c0b9), /* 5^-167 */
    UINT64_C(0xbcb2b812db11a5de), UINT64_C(0x7415d448f6b6f0e7), /* 5^-166 */
    UINT64_C(0xebdf661791d60f56), UINT64_C(0x111b495b3464ad21), /* 5^-165 */
    UINT64_C(0x936b9fcebb25c995), UINT64_C(0xcab10dd900beec34), /* 5^-164 */
    UINT64_C(0xb84687c269ef3bfb), UINT64_C(0x3d5d514f40eea742), /* 5^-163 */
    UINT64_C(0xe65829b3046b0afa), UINT64_C(0x0cb4a5a3112a5112), /* 5^-162 */
    UINT64_C(0x8ff71a0fe2c2e6dc), UINT64_C(0x47f0e785eaba72ab), /* 5^-161 */
    UINT64_C(0xb3f4e093db73a093), UINT64_C(0x59ed216765690f56), /* 5^-160 */
    UINT64_C(0xe0f218b8d25088b8), UINT64_C(0x306869c13ec3532c), /* 5^-159 */
    UINT64_C(0x8c974f7383725573), UINT64_C(0x1e414218c73a13fb), /* 5^-158 */
    UINT64_C(0xafbd2350644eeacf), UINT64_C(0xe5d1929ef90898fa), /* 5^-157 */
    UINT64_C(0xdbac6c247d62a583), UINT64_C(0xdf45f746b74abf39), /* 5^-156 */
    UINT64_C(0x894bc396ce5da772), UINT64_C(0x6b8bba8c328eb783), /* 5^-155 */
    UINT64_C(0xab9eb47c81f5114f), UINT64_C(0x066ea92f3f326564), /* 5^-154 */
    UINT64_C(0xd686619ba27255a2), UINT64_C(0xc80a537b0efefebd), /* 5^-153 */
    UINT64_C(0x8613fd0145877585), UINT64_C(0xbd06742ce95f5f36), /* 5^-152 */
    UINT64_C(0xa798fc4196e952e7), UINT64_C(0x2c48113823b73704), /* 5^-151 */
    UINT64_C(0xd17f3b51fca3a7a0), UINT64_C(0xf75a15862ca504c5), /* 5^-150 */
    UINT64_C(0x82ef85133de648c4), UINT64_C(0x9a984d73dbe722fb), /* 5^-149 */
    UINT64_C(0xa3ab66580d5fdaf5), UINT64_C(0xc13e60d0d2e0ebba), /* 5^-148 */
    UINT64_C(0xcc963fee10b7d1b3), UINT64_C(0x318df905079926a8), /* 5^-147 */
    UINT64_C(0xffbbcfe994e5c61f), UINT64_C(0xfdf17746497f7052), /* 5^-146 */
    UINT64_C(0x9fd561f1fd0f9bd3), UINT64_C(0xfeb6ea8bedefa633), /* 5^-145 */
    UINT64_C(0xc7caba6e7c5382c8), UINT64_C(0xfe64a52ee96b8fc0), /* 5^-144 */
    UINT64_C(0xf9bd690a1b68637b), UINT64_C(0x3dfdce7aa3c673b0), /* 5^-143 */
    UINT64_C(0x9c1661a651213e2d), UINT64_C(0x06bea10ca65c084e), /* 5^-142 */
    UINT64_C(0xc31bfa0fe5698db8), UINT64_C(0x486e494fcff30a62), /* 5^-141 */
    UINT64_C(0xf3e2f893dec3f126), UINT64_C(0x5a89dba3c3efccfa), /* 5^-140 */
    UINT64_C(0x986ddb5c6b3a76b7), UINT64_C(0xf89629465a75e01c), /* 5^-139 */
    UINT64_C(0xbe89523386091465), UINT64_C(0xf6bbb397f1135823), /* 5^-138 */
    UINT64_C(0xee2ba6c0678b597f), UINT64_C(0x746aa07ded582e2c), /* 5^-137 */
    UINT64_C(0x94db483840b717ef), UINT64_C(0xa8c2a44eb4571cdc), /* 5^-136 */
    UINT64_C(0xba121a4650e4ddeb), UINT64_C(0x92f34d62616ce413), /* 5^-135 */
    UINT64_C(0xe896a0d7e51e1566), UINT64_C(0x77b020baf9c81d17), /* 5^-134 */
    UINT64_C(0x915e2486ef32cd60), UINT64_C(0x0ace1474dc1d122e), /* 5^-133 */
    UINT64_C(0xb5b5ada8aaff80b8), UINT64_C(0x0d819992132456ba), /* 5^-132 */
    UINT64_C(0xe3231912d5bf60e6), UINT64_C(0x10e1fff697ed6c69), /* 5^-131 */
    UINT64_C(0x8df5efabc5979c8f), UINT64_C(0xca8d3ffa1ef463c1), /* 5^-130 */
    UINT64_C(0xb1736b96b6fd83b3), UINT64_C(0xbd308ff8a6b17cb2), /* 5^-129 */
    UINT64_C(0xddd0467c64bce4a0), UINT64_C(0xac7cb3f6d05ddbde), /* 5^-128 */
    UINT64_C(0x8aa22c0dbef60ee4), UINT64_C(0x6bcdf07a423aa96b), /* 5^-127 */
    UINT64_C(0xad4ab7112eb3929d), UINT64_C(0x86c16c98d2c953c6), /* 5^-126 */
    UINT64_C(0xd89d64d57a607744), UINT64_C(0xe871c7bf077ba8b7), /* 5^-125 */
    UINT64_C(0x87625f056c7c4a8b), UINT64_C(0x11471cd764ad4972), /* 5^-124 */
    UINT64_C(0xa93af6c6c79b5d2d), UINT64_C(0xd598e40d3dd89bcf), /* 5^-123 */
    UINT64_C(0xd389b47879823479), UINT64_C(0x4aff1d108d4ec2c3), /* 5^-122 */
    UINT64_C(0x843610cb4bf160cb), UINT64_C(0xcedf722a585139ba), /* 5^-121 */
    UINT64_C(0xa54394fe1eedb8fe), UINT64_C(0xc2974eb4ee658828), /* 5^-120 */
    UINT64_C(0xce947a3da6a9273e), UINT64_C(0x733d226229feea32), /* 5^-119 */
    UINT64_C(0x811ccc668829b887), UINT64_C(0x0806357d5a3f525f), /* 5^-118 */
    UINT64_C(0xa163ff802a3426a8), UINT64_C(0xca07c2dcb0cf26f7), /* 5^-117 */
    UINT64_C(0xc9bcff6034c13052), UINT64_C(0xfc89b393dd02f0b5), /* 5^-116 */
    UINT64_C(0xfc2c3f3841f17c67), UINT64_C(0xbbac2078d443ace2), /* 5^-115 */
    UINT64_C(0x9d9ba7832936edc0), UINT64_C(0xd54b944b84aa4c0d), /* 5^-114 */
    UINT64_C(0xc5029163f384a931), UINT64_C(0x0a9e795e65d4df11), /* 5^-113 */
    UINT64_C(0xf64335bcf065d37d), UINT64_C(0x4d4617b5ff4a16d5), /* 5^-112 */
    UINT64_C(0x99ea0196163fa42e), UINT64_C(0x504bced1bf8e4e45), /* 5^-111 */
    UINT64_C(0xc06481fb9bcf8d39), UINT64_C(0xe45ec2862f71e1d6), /* 5^-110 */
    UINT64_C(0xf07da27a82c37088), UINT64_C(0x5d767327bb4e5a4c), /* 5^-109 */
    UINT64_C(0x964e858c91ba2655), UINT64_C(0x3a6a07f8d510f86f), /* 5^-108 */
    UINT64_C(0xbbe226efb628afea), UINT64_C(0x890489f70a55368b), /* 5^-107 */
    UINT64_C(0xeadab0aba3b2dbe5), UINT64_C(0x2b45ac74ccea842e), /* 5^-106 */
    UINT64_C(0x92c8ae6b464fc96f), UINT64_C(0x3b0b8bc90012929d), /* 5^-105 */
    UINT64_C(0xb77ada0617e3bbcb), UINT64_C(0x09ce6ebb40173744), /* 5^-104 */
    UINT64_C(0xe55990879ddcaabd), UINT64_C(0xcc420a6a101d0515), /* 5^-103 */
    UINT64_C(0x8f57fa54c2a9eab6), UINT64_C(0x9fa946824a12232d), /* 5^-102 */
    UINT64_C(0xb32df8e9f3546564), UINT64_C(0x47939822dc96abf9), /* 5^-101 */
    UINT64_C(0xdff9772470297ebd), UINT64_C(0x59787e2b93bc56f7), /* 5^-100 */
    UINT64_C(0x8bfbea76c619ef36), UINT64_C(0x57eb4edb3c55b65a), /* 5^-99 */
    UINT64_C(0xaefae51477a06b03), UINT64_C(0xede622920b6b23f1), /* 5^-98 */
    UINT64_C(0xdab99e59958885c4), UINT64_C(0xe95fab368e45eced), /* 5^-97 */
    UINT64_C(0x88b402f7fd75539b), UINT64_C(0x11dbcb0218ebb414), /* 5^-96 */
    UINT64_C(0xaae103b5fcd2a881), UINT64_C(0xd652bdc29f26a119), /* 5^-95 */
    UINT64_C(0xd59944a37c0752a2), UINT64_C(0x4be76d3346f0495f), /* 5^-94 */
    UINT64_C(0x857fcae62d8493a5), UINT64_C(0x6f70a4400c562ddb), /* 5^-93 */
    UINT64_C(0xa6dfbd9fb8e5b88e), UINT64_C(0xcb4ccd500f6bb952), /* 5^-92 */
    UINT64_C(0xd097ad07a71f26b2), UINT64_C(0x7e2000a41346a7a7), /* 5^-91 */
    UINT64_C(0x825ecc24c873782f), UINT64_C(0x8ed400668c0c28c8), /* 5^-90 */
    UINT64_C(0xa2f67f2dfa90563b), UINT64_C(0x728900802f0f32fa), /* 5^-89 */
    UINT64_C(0xcbb41ef979346bca), UINT64_C(0x4f2b40a03ad2ffb9), /* 5^-88 */
    UINT64_C(0xfea126b7d78186bc), UINT64_C(0xe2f610c84987bfa8), /* 5^-87 */
    UINT64_C(0x9f24b832e6b0f436), UINT64_C(0x0dd9ca7d2df4d7c9), /* 5^-86 */
    UINT64_C(0xc6ede63fa05d3143), UINT64_C(0x91503d1c79720dbb), /* 5^-85 */
    UINT64_C(0xf8a95fcf88747d94), UINT64_C(0x75a44c6397ce912a), /* 5^-84 */
    UINT64_C(0x9b69dbe1b548ce7c), UINT64_C(0xc986afbe3ee11aba), /* 5^-83 */
    UINT64_C(0xc24452da229b021b), UINT64_C(0xfbe85badce996168), /* 5^-82 */
    UINT64_C(0xf2d56790ab41c2a2), UINT64_C(0xfae27299423fb9c3), /* 5^-81 */
    UINT64_C(0x97c560ba6b0919a5), UINT64_C(0xdccd879fc967d41a), /* 5^-80 */
    UINT64_C(0xbdb6b8e905cb600f), UINT64_C(0x5400e987bbc1c920), /* 5^-79 */
    UINT64_C(0xed246723473e3813), UINT64_C(0x290123e9aab23b68), /* 5^-78 */
    UINT64_C(0x9436c0760c86e30b), UINT64_C(0xf9a0b6720aaf6521), /* 5^-77 */
    UINT64_C(0xb94470938fa89bce), UINT64_C(0xf808e40e8d5b3e69), /* 5^-76 */
    UINT64_C(0xe7958cb87392c2c2), UINT64_C(0xb60b1d1230b20e04), /* 5^-75 */
    UINT64_C(0x90bd77f3483bb9b9), UINT64_C(0xb1c6f22b5e6f48c2), /* 5^-74 */
    UINT64_C(0xb4ecd5f01a4aa828), UINT64_C(0x1e38aeb6360b1af3), /* 5^-73 */
    UINT64_C(0xe2280b6c20dd5232), UINT64_C(0x25c6da63c38de1b0), /* 5^-72 */
    UINT64_C(0x8d590723948a535f), UINT64_C(0x579c487e5a38ad0e), /* 5^-71 */
    UINT64_C(0xb0af48ec79ace837), UINT64_C(0x2d835a9df0c6d851), /* 5^-70 */
    UINT64_C(0xdcdb1b2798182244), UINT64_C(0xf8e431456cf88e65), /* 5^-69 */
    UINT64_C(0x8a08f0f8bf0f156b), UINT64_C(0x1b8e9ecb641b58ff), /* 5^-68 */
    UINT64_C(0xac8b2d36eed2dac5), UINT64_C(0xe272467e3d222f3f), /* 5^-67 */
    UINT64_C(0xd7adf884aa879177), UINT64_C(0x5b0ed81dcc6abb0f), /* 5^-66 */
    UINT64_C(0x86ccbb52ea94baea), UINT64_C(0x98e947129fc2b4e9), /* 5^-65 */
    UINT64_C(0xa87fea27a539e9a5), UINT64_C(0x3f2398d747b36224), /* 5^-64 */
    UINT64_C(0xd29fe4b18e88640e), UINT64_C(0x8eec7f0d19a03aad), /* 5^-63 */
    UINT64_C(0x83a3eeeef9153e89), UINT64_C(0x1953cf68300424ac), /* 5^-62 */
    UINT64_C(0xa48ceaaab75a8e2b), UINT64_C(0x5fa8c3423c052dd7), /* 5^-61 */
    UINT64_C(0xcdb02555653131b6), UINT64_C(0x3792f412cb06794d), /* 5^-60 */
    UINT64_C(0x808e17555f3ebf11), UINT64_C(0xe2bbd88bbee40bd0), /* 5^-59 */
    UINT64_C(0xa0b19d2ab70e6ed6), UINT64_C(0x5b6aceaeae9d0ec4), /* 5^-58 */
    UINT64_C(0xc8de047564d20a8b), UINT64_C(0xf245825a5a445275), /* 5^-57 */
    UINT64_C(0xfb158592be068d2e), UINT64_C(0xeed6e2f0f0d56712), /* 5^-56 */
    UINT64_C(0x9ced737bb6c4183d), UINT64_C(0x55464dd69685606b), /* 5^-55 */
    UINT64_C(0xc428d05aa4751e4c), UINT64_C(0xaa97e14c3c26b886), /* 5^-54 */
    UINT64_C(0xf53304714d9265df), UINT64_C(0xd53dd99f4b3066a8), /* 5^-53 */
    UINT64_C(0x993fe2c6d07b7fab), UINT64_C(0xe546a8038efe4029), /* 5^-52 */
    UINT64_C(0xbf8fdb78849a5f96), UINT64_C(0xde98520472bdd033), /* 5^-51 */
    UINT64_C(0xef73d256a5c0f77c), UINT64_C(0x963e66858f6d4440), /* 5^-50 */
    UINT64_C(0x95a8637627989aad), UINT64_C(0xdde7001379a44aa8), /* 5^-49 */
    UINT64_C(0xbb127c53b17ec159), UINT64_C(0x5560c018580d5d52), /* 5^-48 */
    UINT64_C(0xe9d71b689dde71af), UINT64_C(0xaab8f01e6e10b4a6), /* 5^-47 */
    UINT64_C(0x9226712162ab070d), UINT64_C(0xcab3961304ca70e8), /* 5^-46 */
    UINT64_C(0xb6b00d69bb55c8d1), UINT64_C(0x3d607b97c5fd0d22), /* 5^-45 */
    UINT64_C(0xe45c10c42a2b3b05), UINT64_C(0x8cb89a7db77c506a), /* 5^-44 */
    UINT64_C(0x8eb98a7a9a5b04e3), UINT64_C(0x77f3608e92adb242), /* 5^-43 */
    UINT64_C(0xb267ed1940f1c61c), UINT64_C(0x55f038b237591ed3), /* 5^-42 */
    UINT64_C(0xdf01e85f912e37a3), UINT64_C(0x6b6c46dec52f6688), /* 5^-41 */
    UINT64_C(0x8b61313bbabce2c6), UINT64_C(0x2323ac4b3b3da015), /* 5^-40 */
    UINT64_C(0xae397d8aa96c1b77), UINT64_C(0xabec975e0a0d081a), /* 5^-39 */
    UINT64_C(0xd9c7dced53c72255), UINT64_C(0x96e7bd358c904a21), /* 5^-38 */
    UINT64_C(0x881cea14545c7575), UINT64_C(0x7e50d64177da2e54), /* 5^-37 */
    UINT64_C(0xaa242499697392d2), UINT64_C(0xdde50bd1d5d0b9e9), /* 5^-36 */
    UINT64_C(0xd4ad2dbfc3d07787), UINT64_C(0x955e4ec64b44e864), /* 5^-35 */
    UINT64_C(0x84ec3c97da624ab4), UINT64_C(0xbd5af13bef0b113e), /* 5^-34 */
    UINT64_C(0xa6274bbdd0fadd61), UINT64_C(0xecb1ad8aeacdd58e), /* 5^-33 */
    UINT64_C(0xcfb11ead453994ba), UINT64_C(0x67de18eda5814af2), /* 5^-32 */
    UINT64_C(0x81ceb32c4b43fcf4), UINT64_C(0x80eacf948770ced7), /* 5^-31 */
    UINT64_C(0xa2425ff75e14fc31), UINT64_C(0xa1258379a94d028d), /* 5^-30 */
    UINT64_C(0xcad2f7f5359a3b3e), UINT64_C(0x096ee45813a04330), /* 5^-29 */
    UINT64_C(0xfd87b5f28300ca0d), UINT64_C(0x8bca9d6e188853fc), /* 5^-28 */
    UINT64_C(0x9e74d1b791e07e48), UINT64_C(0x775ea264cf55347e), /* 5^-27 */
    UINT64_C(0xc612062576589dda), UINT64_C(0x95364afe032a81a0), /* 5^-26 */
    UINT64_C(0xf79687aed3eec551), UINT64_C(0x3a83ddbd83f52210), /* 5^-25 */
    UINT64_C(0x9abe14cd44753b52), UINT64_C(0xc4926a9672793580), /* 5^-24 */
    UINT64_C(0xc16d9a0095928a27), UINT64_C(0x75b7053c0f178400), /* 5^-23 */
    UINT64_C(0xf1c90080baf72cb1), UINT64_C(0x5324c68b12dd6800), /* 5^-22 */
    UINT64_C(0x971da05074da7bee), UINT64_C(0xd3f6fc16ebca8000), /* 5^-21 */
    UINT64_C(0xbce5086492111aea), UINT64_C(0x88f4bb1ca6bd0000), /* 5^-20 */
    UINT64_C(0xec1e4a7db69561a5), UINT64_C(0x2b31e9e3d0700000), /* 5^-19 */
    UINT64_C(0x9392ee8e921d5d07), UINT64_C(0x3aff322e62600000), /* 5^-18 */
    UINT64_C(0xb877aa3236a4b449), UINT64_C(0x09befeb9fad487c3), /* 5^-17 */
    UINT64_C(0xe69594bec44de15b), UINT64_C(0x4c2ebe687989a9b4), /* 5^-16 */
    UINT64_C(0x901d7cf73ab0acd9), UINT64_C(0x0f9d37014bf60a11), /* 5^-15 */
    UINT64_C(0xb424dc35095cd80f), UINT64_C(0x538484c19ef38c95), /* 5^-14 */
    UINT64_C(0xe12e13424bb40e13), UINT64_C(0x2865a5f206b06fba), /* 5^-13 */
    UINT64_C(0x8cbccc096f5088cb), UINT64_C(0xf93f87b7442e45d4), /* 5^-12 */
    UINT64_C(0xafebff0bcb24aafe), UINT64_C(0xf78f69a51539d749), /* 5^-11 */
    UINT64_C(0xdbe6fecebdedd5be), UINT64_C(0xb573440e5a884d1c), /* 5^-10 */
    UINT64_C(0x89705f4136b4a597), UINT64_C(0x31680a88f8953031), /* 5^-9 */
    UINT64_C(0xabcc77118461cefc), UINT64_C(0xfdc20d2b36ba7c3e), /* 5^-8 */
    UINT64_C(0xd6bf94d5e57a42bc), UINT64_C(0x3d32907604691b4d), /* 5^-7 */
    UINT64_C(0x8637bd05af6c69b5), UINT64_C(0xa63f9a49c2c1b110), /* 5^-6 */
    UINT64_C(0xa7c5ac471b478423), UINT64_C(0x0fcf80dc33721d54), /* 5^-5 */
    UINT64_C(0xd1b71758e219652b), UINT64_C(0xd3c36113404ea4a9), /* 5^-4 */
    UINT64_C(0x83126e978d4fdf3b), UINT64_C(0x645a1cac083126ea), /* 5^-3 */
    UINT64_C(0xa3d70a3d70a3d70a), UINT64_C(0x3d70a3d70a3d70a4), /* 5^-2 */
    UINT64_C(0xcccccccccccccccc), UINT64_C(0xcccccccccccccccd), /* 5^-1 */
    UINT64_C(0x8000000000000000), UINT64_C(0x0000000000000000), /* 5^0 */
    UINT64_C(0xa000000000000000), UINT64_C(0x0000000000000000), /* 5^1 */
    UINT64_C(0xc800000000000000), UINT64_C(0x0000000000000000), /* 5^2 */
    UINT64_C(0xfa00000000000000), UINT64_C(0x0000000000000000), /* 5^3 */
    UINT64_C(0x9c40000000000000), UINT64_C(0x0000000000000000), /* 5^4 */
    UINT64_C(0xc350000000000000), UINT64_C(0x0000000000000000), /* 5^5 */
    UINT64_C(0xf424000000000000), UINT64_C(0x0000000000000000), /* 5^6 */
    UINT64_C(0x9896800000000000), UINT64_C(0x0000000000000000), /* 5^7 */
    UINT64_C(0xbebc200000000000), UINT64_C(0x0000000000000000), /* 5^8 */
    UINT64_C(0xee6b280000000000), UINT64_C(0x0000000000000000), /* 5^9 */
    UINT64_C(0x9502f90000000000), UINT64_C(0x0000000000000000), /* 5^10 */
    UINT64_C(0xba43b74000000000), UINT64_C(0x0000000000000000), /* 5^11 */
    UINT64_C(0xe8d4a51000000000), UINT64_C(0x0000000000000000), /* 5^12 */
    UINT64_C(0x9184e72a00000000), UINT64_C(0x0000000000000000), /* 5^13 */
    UINT64_C(0xb5e620f480000000), UINT64_C(0x0000000000000000), /* 5^14 */
    UINT64_C(0xe35fa931a0000000), UINT64_C(0x0000000000000000), /* 5^15 */
    UINT64_C(0x8e1bc9bf04000000), UINT64_C(0x0000000000000000), /* 5^16 */
    UINT64_C(0xb1a2bc2ec5000000), UINT64_C(0x0000000000000000), /* 5^17 */
    UINT64_C(0xde0b6b3a76400000), UINT64_C(0x0000000000000000), /* 5^18 */
    UINT64_C(0x8ac7230489e80000), UINT64_C(0x0000000000000000), /* 5^19 */
    UINT64_C(0xad78ebc5ac620000), UINT64_C(0x0000000000000000), /* 5^20 */
    UINT64_C(0xd8d726b7177a8000), UINT64_C(0x0000000000000000), /* 5^21 */
    UINT64_C(0x878678326eac9000), UINT64_C(0x0000000000000000), /* 5^22 */
    UINT64_C(0xa968163f0a57b400), UINT64_C(0x0000000000000000), /* 5^23 */
    UINT64_C(0xd3c21bcecceda100), UINT64_C(0x0000000000000000), /* 5^24 */
    UINT64_C(0x84595161401484a0), UINT64_C(0x0000000000000000), /* 5^25 */
    UINT64_C(0xa56fa5b99019a5c8), UINT64_C(0x0000000000000000), /* 5^26 */
    UINT64_C(0xcecb8f27f4200f3a), UINT64_C(0x0000000000000000), /* 5^27 */
    UINT64_C(0x813f3978f8940984), UINT64_C(0x4000000000000000), /* 5^28 */
    UINT64_C(0xa18f07d736b90be5), UINT64_C(0x5000000000000000), /* 5^29 */
    UINT64_C(0xc9f2c9cd04674ede), UINT64_C(0xa400000000000000), /* 5^30 */
    UINT64_C(0xfc6f7c4045812296), UINT64_C(0x4d00000000000000), /* 5^31 */
    UINT64_C(0x9dc5ada82b70b59d), UINT64_C(0xf020000000000000), /* 5^32 */
    UINT64_C(0xc5371912364ce305), UINT64_C(0x6c28000000000000), /* 5^33 */
    UINT64_C(0xf684df56c3e01bc6), UINT64_C(0xc732000000000000), /* 5^34 */
    UINT64_C(0x9a130b963a6c115c), UINT64_C(0x3c7f400000000000), /* 5^35 */
    UINT64_C(0xc097ce7bc90715b3), UINT64_C(0x4b9f100000000000), /* 5^36 */
    UINT64_C(0xf0bdc21abb48db20), UINT64_C(0x1e86d40000000000), /* 5^37 */
    UINT64_C(0x96769950b50d88f4), UINT64_C(0x1314448000000000), /* 5^38 */
    UINT64_C(0xbc143fa4e250eb31), UINT64_C(0x17d955a000000000), /* 5^39 */
    UINT64_C(0xeb194f8e1ae525fd), UINT64_C(0x5dcfab0800000000), /* 5^40 */
    UINT64_C(0x92efd1b8d0cf37be), UINT64_C(0x5aa1cae500000000), /* 5^41 */
    UINT64_C(0xb7abc627050305ad), UINT64_C(0xf14a3d9e40000000), /* 5^42 */
    UINT64_C(0xe596b7b0c643c719), UINT64_C(0x6d9ccd05d0000000), /* 5^43 */
    UINT64_C(0x8f7e32ce7bea5c6f), UINT64_C(0xe4820023a2000000), /* 5^44 */
    UINT64_C(0xb35dbf821ae4f38b), UINT64_C(0xdda2802c8a800000), /* 5^45 */
    UINT64_C(0xe0352f62a19e306e), UINT64_C(0xd50b2037ad200000), /* 5^46 */
    UINT64_C(0x8c213d9da502de45), UINT64_C(0x4526f422cc340000), /* 5^47 */
    UINT64_C(0xaf298d050e4395d6), UINT64_C(0x9670b12b7f410000), /* 5^48 */
    UINT64_C(0xdaf3f04651d47b4c), UINT64_C(0x3c0cdd765f114000), /* 5^49 */
    UINT64_C(0x88d8762bf324cd0f), UINT64_C(0xa5880a69fb6ac800), /* 5^50 */
    UINT64_C(0xab0e93b6efee0053), UINT64_C(0x8eea0d047a457a00), /* 5^51 */
    UINT64_C(0xd5d238a4abe98068), UINT64_C(0x72a4904598d6d880), /* 5^52 */
    UINT64_C(0x85a36366eb71f041), UINT64_C(0x47a6da2b7f864750), /* 5^53 */
    UINT64_C(0xa70c3c40a64e6c51), UINT64_C(0x999090b65f67d924), /* 5^54 */
    UINT64_C(0xd0cf4b50cfe20765), UINT64_C(0xfff4b4e3f741cf6d), /* 5^55 */
    UINT64_C(0x82818f1281ed449f), UINT64_C(0xbff8f10e7a8921a4), /* 5^56 */
    UINT64_C(0xa321f2d7226895c7), UINT64_C(0xaff72d52192b6a0d), /* 5^57 */
    UINT64_C(0xcbea6f8ceb02bb39), UINT64_C(0x9bf4f8a69f764490), /* 5^58 */
    UINT64_C(0xfee50b7025c36a08), UINT64_C(0x02f236d04753d5b4), /* 5^59 */
    UINT64_C(0x9f4f2726179a2245), UINT64_C(0x01d762422c946590), /* 5^60 */
    UINT64_C(0xc722f0ef9d80aad6), UINT64_C(0x424d3ad2b7b97ef5), /* 5^61 */
    UINT64_C(0xf8ebad2b84e0d58b), UINT64_C(0xd2e0898765a7deb2), /* 5^62 */
    UINT64_C(0x9b934c3b330c8577), UINT64_C(0x63cc55f49f88eb2f), /* 5^63 */
    UINT64_C(0xc2781f49ffcfa6d5), UINT64_C(0x3cbf6b71c76b25fb), /* 5^64 */
    UINT64_C(0xf316271c7fc3908a), UINT64_C(0x8bef464e3945ef7a), /* 5^65 */
    UINT64_C(0x97edd871cfda3a56), UINT64_C(0x97758bf0e3cbb5ac), /* 5^66 */
    UINT64_C(0xbde94e8e43d0c8ec), UINT64_C(0x3d52eeed1cbea317), /* 5^67 */
    UINT64_C(0xed63a231d4c4fb27), UINT64_C(0x4ca7aaa863ee4bdd), /* 5^68 */
    UINT64_C(0x945e455f24fb1cf8), UINT64_C(0x8fe8caa93e74ef6a), /* 5^69 */
    UINT64_C(0xb975d6b6ee39e436), UINT64_C(0xb3e2fd538e122b44), /* 5^70 */
    UINT64_C(0xe7d34c64a9c85d44), UINT64_C(0x60dbbca87196b616), /* 5^71 */
    UINT64_C(0x90e40fbeea1d3a4a), UINT64_C(0xbc8955e946fe31cd), /* 5^72 */
    UINT64_C(0xb51d13aea4a488dd), UINT64_C(0x6babab6398bdbe41), /* 5^73 */
    UINT64_C(0xe264589a4dcdab14), UINT64_C(0xc696963c7eed2dd1), /* 5^74 */
    UINT64_C(0x8d7eb76070a08aec), UINT64_C(0xfc1e1de5cf543ca2), /* 5^75 */
    UINT64_C(0xb0de65388cc8ada8), UINT64_C(0x3b25a55f43294bcb), /* 5^76 */
    UINT64_C(0xdd15fe86affad912), UINT64_C(0x49ef0eb713f39ebe), /* 5^77 */
    UINT64_C(0x8a2dbf142dfcc7ab), UINT64_C(0x6e3569326c784337), /* 5^78 */
    UINT64_C(0xacb92ed9397bf996), UINT64_C(0x49c2c37f07965404), /* 5^79 */
    UINT64_C(0xd7e77a8f87daf7fb), UINT64_C(0xdc33745ec97be906), /* 5^80 */
    UINT64_C(0x86f0ac99b4e8dafd), UINT64_C(0x69a028bb3ded71a3), /* 5^81 */
    UINT64_C(0xa8acd7c0222311bc), UINT64_C(0xc40832ea0d68ce0c), /* 5^82 */
    UINT64_C(0xd2d80db02aabd62b), UINT64_C(0xf50a3fa490c30190), /* 5^83 */
    UINT64_C(0x83c7088e1aab65db), UINT64_C(0x792667c6da79e0fa), /* 5^84 */
    UINT64_C(0xa4b8cab1a1563f52), UINT64_C(0x577001b891185938), /* 5^85 */
    UINT64_C(0xcde6fd5e09abcf26), UINT64_C(0xed4c0226b55e6f86), /* 5^86 */
    UINT64_C(0x80b05e5ac60b6178), UINT64_C(0x544f8158315b05b4), /* 5^87 */
    UINT64_C(0xa0dc75f1778e39d6), UINT64_C(0x696361ae3db1c721), /* 5^88 */
    UINT64_C(0xc913936dd571c84c), UINT64_C(0x03bc3a19cd1e38e9), /* 5^89 */
    UINT64_C(0xfb5878494ace3a5f), UINT64_C(0x04ab48a04065c723), /* 5^90 */
    UINT64_C(0x9d174b2dcec0e47b), UINT64_C(0x62eb0d64283f9c76), /* 5^91 */
    UINT64_C(0xc45d1df942711d9a), UINT64_C(0x3ba5d0bd324f8394), /* 5^92 */
    UINT64_C(0xf5746577930d6500), UINT64_C(0xca8f44ec7ee36479), /* 5^93 */
    UINT64_C(0x9968bf6abbe85f20), UINT64_C(0x7e998b13cf4e1ecb), /* 5^94 */
    UINT64_C(0xbfc2ef456ae276e8), UINT64_C(0x9e3fedd8c321a67e), /* 5^95 */
    UINT64_C(0xefb3ab16c59b14a2), UINT64_C(0xc5cfe94ef3ea101e), /* 5^96 */
    UINT64_C(0x95d04aee3b80ece5), UINT64_C(0xbba1f1d158724a12), /* 5^97 */
    UINT64_C(0xbb445da9ca61281f), UINT64_C(0x2a8a6e45ae8edc97), /* 5^98 */
    UINT64_C(0xea1575143cf97226), UINT64_C(0xf52d09d71a3293bd), /* 5^99 */
    UINT64_C(0x924d692ca61be758), UINT64_C(0x593c2626705f9c56), /* 5^100 */
    UINT64_C(0xb6e0c377cfa2e12e), UINT64_C(0x6f8b2fb00c77836c), /* 5^101 */
    UINT64_C(0xe498f455c38b997a), UINT64_C(0x0b6dfb9c0f956447), /* 5^102 */
    UINT64_C(0x8edf98b59a373fec), UINT64_C(0x4724bd4189bd5eac), /* 5^103 */
    UINT64_C(0xb2977ee300c50fe7), UINT64_C(0x58edec91ec2cb657), /* 5^104 */
    UINT64_C(0xdf3d5e9bc0f653e1), UINT64_C(0x2f2967b66737e3ed), /* 5^105 */
    UINT64_C(0x8b865b215899f46c), UINT64_C(0xbd79e0d20082ee74), /* 5^106 */
    UINT64_C(0xae67f1e9aec07187), UINT64_C(0xecd8590680a3aa11), /* 5^107 */
    UINT64_C(0xda01ee641a708de9), UINT64_C(0xe80e6f4820cc9495), /* 5^108 */
    UINT64_C(0x884134fe908658b2), UINT64_C(0x3109058d147fdcdd), /* 5^109 */
    UINT64_C(0xaa51823e34a7eede), UINT64_C(0xbd4b46f0599fd415), /* 5^110 */
    UINT64_C(0xd4e5e2cdc1d1ea96), UINT64_C(0x6c9e18ac7007c91a), /* 5^111 */
    UINT64_C(0x850fadc09923329e), UINT64_C(0x03e2cf6bc604ddb0), /* 5^112 */
    UINT64_C(0xa6539930bf6bff45), UINT64_C(0x84db8346b786151c), /* 5^113 */
    UINT64_C(0xcfe87f7cef46ff16), UINT64_C(0xe612641865679a63), /* 5^114 */
    UINT64_C(0x81f14fae158c5f6e), UINT64_C(0x4fcb7e8f3f60c07e), /* 5^115 */
    UINT64_C(0xa26da3999aef7749), UINT64_C(0xe3be5e330f38f09d), /* 5^116 */
    UINT64_C(0xcb090c8001ab551c), UINT64_C(0x5cadf5bfd3072cc5), /* 5^117 */
    UINT64_C(0xfdcb4fa002162a63), UINT64_C(0x73d9732fc7c8f7f6), /* 5^118 */
    UINT64_C(0x9e9f11c4014dda7e), UINT64_C(0x2867e7fddcdd9afa), /* 5^119 */
    UINT64_C(0xc646d63501a1511d), UINT64_C(0xb281e1fd541501b8), /* 5^120 */
    UINT64_C(0xf7d88bc24209a565), UINT64_C(0x1f225a7ca91a4226), /* 5^121 */
    UINT64_C(0x9ae757596946075f), UINT64_C(0x3375788de9b06958), /* 5^122 */
    UINT64_C(0xc1a12d2fc3978937), UINT64_C(0x0052d6b1641c83ae), /* 5^123 */
    UINT64_C(0xf209787bb47d6b84), UINT64_C(0xc0678c5dbd23a49a), /* 5^124 */
    UINT64_C(0x9745eb4d50ce6332), UINT64_C(0xf840b7ba963646e0), /* 5^125 */
    UINT64_C(0xbd176620a501fbff), UINT64_C(0xb650e5a93bc3d898), /* 5^126 */
    UINT64_C(0xec5d3fa8ce427aff), UINT64_C(0xa3e51f138ab4cebe), /* 5^127 */
    UINT64_C(0x93ba47c980e98cdf), UINT64_C(0xc66f336c36b10137), /* 5^128 */
    UINT64_C(0xb8a8d9bbe123f017), UINT64_C(0xb80b0047445d4184), /* 5^129 */
    UINT64_C(0xe6d3102ad96cec1d), UINT64_C(0xa60dc059157491e5), /* 5^130 */
    UINT64_C(0x9043ea1ac7e41392), UINT64_C(0x87c89837ad68db2f), /* 5^131 */
    UINT64_C(0xb454e4a179dd1877), UINT64_C(0x29babe4598c311fb), /* 5^132 */
    UINT64_C(0xe16a1dc9d8545e94), UINT64_C(0xf4296dd6fef3d67a), /* 5^133 */
    UINT64_C(0x8ce2529e2734bb1d), UINT64_C(0x1899e4a65f58660c), /* 5^134 */
    UINT64_C(0xb01ae745b101e9e4), UINT64_C(0x5ec05dcff72e7f8f), /* 5^135 */
    UINT64_C(0xdc21a1171d42645d), UINT64_C(0x76707543f4fa1f73), /* 5^136 */
    UINT64_C(0x899504ae72497eba), UINT64_C(0x6a06494a791c53a8), /* 5^137 */
    UINT64_C(0xabfa45da0edbde69), UINT64_C(0x0487db9d17636892), /* 5^138 */
    UINT64_C(0xd6f8d7509292d603), UINT64_C(0x45a9d2845d3c42b6), /* 5^139 */
    UINT64_C(0x865b86925b9bc5c2), UINT64_C(0x0b8a2392ba45a9b2), /* 5^140 */
    UINT64_C(0xa7f26836f282b732), UINT64_C(0x8e6cac7768d7141e), /* 5^141 */
    UINT64_C(0xd1ef0244af2364ff), UINT64_C(0x3207d795430cd926), /* 5^142 */
    UINT64_C(0x8335616aed761f1f), UINT64_C(0x7f44e6bd49e807b8), /* 5^143 */
    UINT64_C(0xa402b9c5a8d3a6e7), UINT64_C(0x5f16206c9c6209a6), /* 5^144 */
    UINT64_C(0xcd036837130890a1), UINT64_C(0x36dba887c37a8c0f), /* 5^145 */
    UINT64_C(0x802221226be55a64), UINT64_C(0xc2494954da2c9789), /* 5^146 */
    UINT64_C(0xa02aa96b06deb0fd), UINT64_C(0xf2db9baa10b7bd6c), /* 5^147 */
    UINT64_C(0xc83553c5c8965d3d), UINT64_C(0x6f92829494e5acc7), /* 5^148 */
    UINT64_C(0xfa42a8b73abbf48c), UINT64_C(0xcb772339ba1f17f9), /* 5^149 */
    UINT64_C(0x9c69a97284b578d7), UINT64_C(0xff2a760414536efb), /* 5^150 */
    UINT64_C(0xc38413cf25e2d70d), UINT64_C(0xfef5138519684aba), /* 5^151 */
    UINT64_C(0xf46518c2ef5b8cd1), UINT64_C(0x7eb258665fc25d69), /* 5^152 */
    UINT64_C(0x98bf2f79d5993802), UINT64_C(0xef2f773ffbd97a61), /* 5^153 */
    UINT64_C(0xbeeefb584aff8603), UINT64_C(0xaafb550ffacfd8fa), /* 5^154 */
    UINT64_C(0xeeaaba2e5dbf6784), UINT64_C(0x95ba2a53f983cf38), /* 5^155 */
    UINT64_C(0x952ab45cfa97a0b2), UINT64_C(0xdd945a747bf26183), /* 5^156 */
    UINT64_C(0xba756174393d88df), UINT64_C(0x94f971119aeef9e4), /* 5^157 */
    UINT64_C(0xe912b9d1478ceb17), UINT64_C(0x7a37cd5601aab85d), /* 5^158 */
    UINT64_C(0x91abb422ccb812ee), UINT64_C(0xac62e055c10ab33a), /* 5^159 */
    UINT64_C(0xb616a12b7fe617aa), UINT64_C(0x577b986b314d6009), /* 5^160 */
    UINT64_C(0xe39c49765fdf9d94), UINT64_C(0xed5a7e85fda0b80b), /* 5^161 */
    UINT64_C(0x8e41ade9fbebc27d), UINT64_C(0x14588f13be847307), /* 5^162 */
    UINT64_C(0xb1d219647ae6b31c), UINT64_C(0x596eb2d8ae258fc8), /* 5^163 */
    UINT64_C(0xde469fbd99a05fe3), UINT64_C(0x6fca5f8ed9aef3bb), /* 5^164 */
    UINT64_C(0x8aec23d680043bee), UINT64_C(0x25de7bb9480d5854), /* 5^165 */
    UINT64_C(0xada72ccc20054ae9), UINT64_C(0xaf561aa79a10ae6a), /* 5^166 */
    UINT64_C(0xd910f7ff28069da4), UINT64_C(0x1b2ba1518094da04), /* 5^167 */
    UINT64_C(0x87aa9aff79042286), UINT64_C(0x90fb44d2f05d0842), /* 5^168 */
    UINT64_C(0xa99541bf57452b28), UINT64_C(0x353a1607ac744a53), /* 5^169 */
    UINT64_C(0xd3fa922f2d1675f2), UINT64_C(0x42889b8997915ce8), /* 5^170 */
    UINT64_C(0x847c9b5d7c2e09b7), UINT64_C(0x69956135febada11), /* 5^171 */
    UINT64_C(0xa59bc234db398c25), UINT64_C(0x43fab9837e699095), /* 5^172 */
    UINT64_C(0xcf02b2c21207ef2e), UINT64_C(0x94f967e45e03f4bb), /* 5^173 */
    UINT64_C(0x8161afb94b44f57d), UINT64_C(0x1d1be0eebac278f5), /* 5^174 */
    UINT64_C(0xa1ba1ba79e1632dc), UINT64_C(0x6462d92a69731732), /* 5^175 */
    UINT64_C(0xca28a291859bbf93), UINT64_C(0x7d7b8f7503cfdcfe), /* 5^176 */
    UINT64_C(0xfcb2cb35e702af78), UINT64_C(0x5cda735244c3d43e), /* 5^177 */
    UINT64_C(0x9defbf01b061adab), UINT64_C(0x3a0888136afa64a7), /* 5^178 */
    UINT64_C(0xc56baec21c7a1916), UINT64_C(0x088aaa1845b8fdd0), /* 5^179 */
    UINT64_C(0xf6c69a72a3989f5b), UINT64_C(0x8aad549e57273d45), /* 5^180 */
    UINT64_C(0x9a3c2087a63f6399), UINT64_C(0x36ac54e2f678864b), /* 5^181 */
    UINT64_C(0xc0cb28a98fcf3c7f), UINT64_C(0x84576a1bb416a7dd), /* 5^182 */
    UINT64_C(0xf0fdf2d3f3c30b9f), UINT64_C(0x656d44a2a11c51d5), /* 5^183 */
    UINT64_C(0x969eb7c47859e743), UINT64_C(0x9f644ae5a4b1b325), /* 5^184 */
    UINT64_C(0xbc4665b596706114), UINT64_C(0x873d5d9f0dde1fee), /* 5^185 */
    UINT64_C(0xeb57ff22fc0c7959), UINT64_C(0xa90cb506d155a7ea), /* 5^186 */
    UINT64_C(0x9316ff75dd87cbd8), UINT64_C(0x09a7f12442d588f2), /* 5^187 */
    UINT64_C(0xb7dcbf5354e9bece), UINT64_C(0x0c11ed6d538aeb2f), /* 5^188 */
    UINT64_C(0xe5d3ef282a242e81), UINT64_C(0x8f1668c8a86da5fa), /* 5^189 */
    UINT64_C(0x8fa475791a569d10), UINT64_C(0xf96e017d694487bc), /* 5^190 */
    UINT64_C(0xb38d92d760ec4455), UINT64_C(0x37c981dcc395a9ac), /* 5^191 */
    UINT64_C(0xe070f78d3927556a), UINT64_C(0x85bbe253f47b1417), /* 5^192 */
    UINT64_C(0x8c469ab843b89562), UINT64_C(0x93956d7478ccec8e), /* 5^193 */
    UINT64_C(0xaf58416654a6babb), UINT64_C(0x387ac8d1970027b2), /* 5^194 */
    UINT64_C(0xdb2e51bfe9d0696a), UINT64_C(0x06997b05fcc0319e), /* 5^195 */
    UINT64_C(0x88fcf317f22241e2), UINT64_C(0x441fece3bdf81f03), /* 5^196 */
    UINT64_C(0xab3c2fddeeaad25a), UINT64_C(0xd527e81cad7626c3), /* 5^197 */
    UINT64_C(0xd60b3bd56a5586f1), UINT64_C(0x8a71e223d8d3b074), /* 5^198 */
    UINT64_C(0x85c7056562757456), UINT64_C(0xf6872d5667844e49), /* 5^199 */
    UINT64_C(0xa738c6bebb12d16c), UINT64_C(0xb428f8ac016561db), /* 5^200 */
    UINT64_C(0xd106f86e69d785c7), UINT64_C(0xe13336d701beba52), /* 5^201 */
    UINT64_C(0x82a45b450226b39c), UINT64_C(0xecc0024661173473), /* 5^202 */
    UINT64_C(0xa34d721642b06084), UINT64_C(0x27f002d7f95d0190), /* 5^203 */
    UINT64_C(0xcc20ce9bd35c78a5), UINT64_C(0x31ec038df7b441f4), /* 5^204 */
    UINT64_C(0xff290242c83396ce), UINT64_C(0x7e67047175a15271), /* 5^205 */
    UINT64_C(0x9f79a169bd203e41), UINT64_C(0x0f0062c6e984d386), /* 5^206 */
    UINT64_C(0xc75809c42c684dd1), UINT64_C(0x52c07b78a3e60868), /* 5^207 */
    UINT64_C(0xf92e0c3537826145), UINT64_C(0xa7709a56ccdf8a82), /* 5^208 */
    UINT64_C(0x9bbcc7a142b17ccb), UINT64_C(0x88a66076400bb691), /* 5^209 */
    UINT64_C(0xc2abf989935ddbfe), UINT64_C(0x6acff893d00ea435), /* 5^210 */
    UINT64_C(0xf356f7ebf83552fe), UINT64_C(0x0583f6b8c4124d43), /* 5^211 */
    UINT64_C(0x98165af37b2153de), UINT64_C(0xc3727a337a8b704a), /* 5^212 */
    UINT64_C(0xbe1bf1b059e9a8d6), UINT64_C(0x744f18c0592e4c5c), /* 5^213 */
    UINT64_C(0xeda2ee1c7064130c), UINT64_C(0x1162def06f79df73), /* 5^214 */
    UINT64_C(0x9485d4d1c63e8be7), UINT64_C(0x8addcb5645ac2ba8), /* 5^215 */
    UINT64_C(0xb9a74a0637ce2ee1), UINT64_C(0x6d953e2bd7173692), /* 5^216 */
    UINT64_C(0xe8111c87c5c1ba99), UINT64_C(0xc8fa8db6ccdd0437), /* 5^217 */
    UINT64_C(0x910ab1d4db9914a0), UINT64_C(0x1d9c9892400a22a2), /* 5^218 */
    UINT64_C(0xb54d5e4a127f59c8), UINT64_C(0x2503beb6d00cab4b), /* 5^219 */
    UINT64_C(0xe2a0b5dc971f303a), UINT64_C(0x2e44ae64840fd61d), /* 5^220 */
    UINT64_C(0x8da471a9de737e24), UINT64_C(0x5ceaecfed289e5d2), /* 5^221 */
    UINT64_C(0xb10d8e1456105dad), UINT64_C(0x7425a83e872c5f47), /* 5^222 */
    UINT64_C(0xdd50f1996b947518), UINT64_C(0xd12f124e28f77719), /* 5^223 */
    UINT64_C(0x8a5296ffe33cc92f), UINT64_C(0x82bd6b70d99aaa6f), /* 5^224 */
    UINT64_C(0xace73cbfdc0bfb7b), UINT64_C(0x636cc64d1001550b), /* 5^225 */
    UINT64_C(0xd8210befd30efa5a), UINT64_C(0x3c47f7e05401aa4e), /* 5^226 */
    UINT64_C(0x8714a775e3e95c78), UINT64_C(0x65acfaec34810a71), /* 5^227 */
    UINT64_C(0xa8d9d1535ce3b396), UINT64_C(0x7f1839a741a14d0d), /* 5^228 */
    UINT64_C(0xd31045a8341ca07c), UINT64_C(0x1ede48111209a050), /* 5^229 */
    UINT64_C(0x83ea2b892091e44d), UINT64_C(0x934aed0aab460432), /* 5^230 */
    UINT64_C(0xa4e4b66b68b65d60), UINT64_C(0xf81da84d5617853f), /* 5^231 */
    UINT64_C(0xce1de40642e3f4b9), UINT64_C(0x36251260ab9d668e), /* 5^232 */
    UINT64_C(0x80d2ae83e9ce78f3), UINT64_C(0xc1d72b7c6b426019), /* 5^233 */
    UINT64_C(0xa1075a24e4421730), UINT64_C(0xb24cf65b8612f81f), /* 5^234 */
    UINT64_C(0xc94930ae1d529cfc), UINT64_C(0xdee033f26797b627), /* 5^235 */
    UINT64_C(0xfb9b7cd9a4a7443c), UINT64_C(0x169840ef017da3b1), /* 5^236 */
    UINT64_C(0x9d412e0806e88aa5), UINT64_C(0x8e1f289560ee864e), /* 5^237 */
    UINT64_C(0xc491798a08a2ad4e), UINT64_C(0xf1a6f2bab92a27e2), /* 5^238 */
    UINT64_C(0xf5b5d7ec8acb58a2), UINT64_C(0xae10af696774b1db), /* 5^239 */
    UINT64_C(0x9991a6f3d6bf1765), UINT64_C(0xacca6da1e0a8ef29), /* 5^240 */
    UINT64_C(0xbff610b0cc6edd3f), UINT64_C(0x17fd090a58d32af3), /* 5^241 */
    UINT64_C(0xeff394dcff8a948e), UINT64_C(0xddfc4b4cef07f5b0), /* 5^242 */
    UINT64_C(0x95f83d0a1fb69cd9), UINT64_C(0x4abdaf101564f98e), /* 5^243 */
    UINT64_C(0xbb764c4ca7a4440f), UINT64_C(0x9d6d1ad41abe37f1), /* 5^244 */
    UINT64_C(0xea53df5fd18d5513), UINT64_C(0x84c86189216dc5ed), /* 5^245 */
    UINT64_C(0x92746b9be2f8552c), UINT64_C(0x32fd3cf5b4e49bb4), /* 5^246 */
    UINT64_C(0xb7118682dbb66a77), UINT64_C(0x3fbc8c33221dc2a1), /* 5^247 */
    UINT64_C(0xe4d5e82392a40515), UINT64_C(0x0fabaf3feaa5334a), /* 5^248 */
    UINT64_C(0x8f05b1163ba6832d), UINT64_C(0x29cb4d87f2a7400e), /* 5^249 */
    UINT64_C(0xb2c71d5bca9023f8), UINT64_C(0x743e20e9ef511012), /* 5^250 */
    UINT64_C(0xdf78e4b2bd342cf6), UINT64_C(0x914da9246b255416), /* 5^251 */
    UINT64_C(0x8bab8eefb6409c1a), UINT64_C(0x1ad089b6c2f7548e), /* 5^252 */
    UINT64_C(0xae9672aba3d0c320), UINT64_C(0xa184ac2473b529b1), /* 5^253 */
    UINT64_C(0xda3c0f568cc4f3e8), UINT64_C(0xc9e5d72d90a2741e), /* 5^254 */
    UINT64_C(0x8865899617fb1871), UINT64_C(0x7e2fa67c7a658892), /* 5^255 */
    UINT64_C(0xaa7eebfb9df9de8d), UINT64_C(0xddbb901b98feeab7), /* 5^256 */
    UINT64_C(0xd51ea6fa85785631), UINT64_C(0x552a74227f3ea565), /* 5^257 */
    UINT64_C(0x8533285c936b35de), UINT64_C(0xd53a88958f87275f), /* 5^258 */
    UINT64_C(0xa67ff273b8460356), UINT64_C(0x8a892abaf368f137), /* 5^259 */
    UINT64_C(0xd01fef10a657842c), UINT64_C(0x2d2b7569b0432d85), /* 5^260 */
    UINT64_C(0x8213f56a67f6b29b), UINT64_C(0x9c3b29620e29fc73), /* 5^261 */
    UINT64_C(0xa298f2c501f45f42), UINT64_C(0x8349f3ba91b47b8f), /* 5^262 */
    UINT64_C(0xcb3f2f7642717713), UINT64_C(0x241c70a936219a73), /* 5^263 */
    UINT64_C(0xfe0efb53d30dd4d7), UINT64_C(0xed238cd383aa0110), /* 5^264 */
    UINT64_C(0x9ec95d1463e8a506), UINT64_C(0xf4363804324a40aa), /* 5^265 */
    UINT64_C(0xc67bb4597ce2ce48), UINT64_C(0xb143c6053edcd0d5), /* 5^266 */
    UINT64_C(0xf81aa16fdc1b81da), UINT64_C(0xdd94b7868e94050a), /* 5^267 */
    UINT64_C(0x9b10a4e5e9913128), UINT64_C(0xca7cf2b4191c8326), /* 5^268 */
    UINT64_C(0xc1d4ce1f63f57d72), UINT64_C(0xfd1c2f611f63a3f0), /* 5^269 */
    UINT64_C(0xf24a01a73cf2dccf), UINT64_C(0xbc633b39673c8cec), /* 5^270 */
    UINT64_C(0x976e41088617ca01), UINT64_C(0xd5be0503e085d813), /* 5^271 */
    UINT64_C(0xbd49d14aa79dbc82), UINT64_C(0x4b2d8644d8a74e18), /* 5^272 */
    UINT64_C(0xec9c459d51852ba2), UINT64_C(0xddf8e7d60ed1219e), /* 5^273 */
    UINT64_C(0x93e1ab8252f33b45), UINT64_C(0xcabb90e5c942b503), /* 5^274 */
    UINT64_C(0xb8da1662e7b00a17), UINT64_C(0x3d6a751f3b936243), /* 5^275 */
    UINT64_C(0xe7109bfba19c0c9d), UINT64_C(0x0cc512670a783ad4), /* 5^276 */
    UINT64_C(0x906a617d450187e2), UINT64_C(0x27fb2b80668b24c5), /* 5^277 */
    UINT64_C(0xb484f9dc9641e9da), UINT64_C(0xb1f9f660802dedf6), /* 5^278 */
    UINT64_C(0xe1a63853bbd26451), UINT64_C(0x5e7873f8a0396973), /* 5^279 */
    UINT64_C(0x8d07e33455637eb2), UINT64_C(0xdb0b487b6423e1e8), /* 5^280 */
    UINT64_C(0xb049dc016abc5e5f), UINT64_C(0x91ce1a9a3d2cda62), /* 5^281 */
    UINT64_C(0xdc5c5301c56b75f7), UINT64_C(0x7641a140cc7810fb), /* 5^282 */
    UINT64_C(0x89b9b3e11b6329ba), UINT64_C(0xa9e904c87fcb0a9d), /* 5^283 */
    UINT64_C(0xac2820d9623bf429), UINT64_C(0x546345fa9fbdcd44), /* 5^284 */
    UINT64_C(0xd732290fbacaf133), UINT64_C(0xa97c177947ad4095), /* 5^285 */
    UINT64_C(0x867f59a9d4bed6c0), UINT64_C(0x49ed8eabcccc485d), /* 5^286 */
    UINT64_C(0xa81f301449ee8c70), UINT64_C(0x5c68f256bfff5a74), /* 5^287 */
    UINT64_C(0xd226fc195c6a2f8c), UINT64_C(0x73832eec6fff3111), /* 5^288 */
    UINT64_C(0x83585d8fd9c25db7), UINT64_C(0xc831fd53c5ff7eab), /* 5^289 */
    UINT64_C(0xa42e74f3d032f525), UINT64_C(0xba3e7ca8b77f5e55), /* 5^290 */
    UINT64_C(0xcd3a1230c43fb26f), UINT64_C(0x28ce1bd2e55f35eb), /* 5^291 */
    UINT64_C(0x80444b5e7aa7cf85), UINT64_C(0x7980d163cf5b81b3), /* 5^292 */
    UINT64_C(0xa0555e361951c366), UINT64_C(0xd7e105bcc332621f), /* 5^293 */
    UINT64_C(0xc86ab5c39fa63440), UINT64_C(0x8dd9472bf3fefaa7), /* 5^294 */
    UINT64_C(0xfa856334878fc150), UINT64_C(0xb14f98f6f0feb951), /* 5^295 */
    UINT64_C(0x9c935e00d4b9d8d2), UINT64_C(0x6ed1bf9a569f33d3), /* 5^296 */
    UINT64_C(0xc3b8358109e84f07), UINT64_C(0x0a862f80ec4700c8), /* 5^297 */
    UINT64_C(0xf4a642e14c6262c8), UINT64_C(0xcd27bb612758c0fa), /* 5^298 */
    UINT64_C(0x98e7e9cccfbd7dbd), UINT64_C(0x8038d51cb897789c), /* 5^299 */
    UINT64_C(0xbf21e44003acdd2c), UINT64_C(0xe0470a63e6bd56c3), /* 5^300 */
    UINT64_C(0xeeea5d5004981478), UINT64_C(0x1858ccfce06cac74), /* 5^301 */
    UINT64_C(0x95527a5202df0ccb), UINT64_C(0x0f37801e0c43ebc8), /* 5^302 */
    UINT64_C(0xbaa718e68396cffd), UINT64_C(0xd30560258f54e6ba), /* 5^303 */
    UINT64_C(0xe950df20247c83fd), UINT64_C(0x47c6b82ef32a2069), /* 5^304 */
    UINT64_C(0x91d28b7416cdd27e), UINT64_C(0x4cdc331d57fa5441), /* 5^305 */
    UINT64_C(0xb6472e511c81471d), UINT64_C(0xe0133fe4adf8e952), /* 5^306 */
    UINT64_C(0xe3d8f9e563a198e5), UINT64_C(0x58180fddd97723a6), /* 5^307 */
    UINT64_C(0x8e679c2f5e44ff8f), UINT64_C(0x570f09eaa7ea7648), /* 5^308 */
};

/* A scanned decimal: value = (neg ? -1 : 1) * mant * 10^exp10, valid while
 * ndig <= 19 (mant holds every significant digit). */
typedef struct {
  bool neg;
  bool frac;    /* a '.' or an exponent was present (not an integer literal) */
  int64_t ndig; /* significant digits (leading zeros not counted) */
  int64_t exp10;
  uint64_t mant; /* meaningless when ndig > 19 (it wraps) */
} decnum;

/* Scans the longest prefix of s of the form [+-] digits [. digits]
 * [(e|E) [+-] digits] with at least one mantissa digit. Returns its end, or
 * NULL when there is no mantissa digit. An 'e' not followed by exponent digits
 * is not consumed (strtod does the same), so the caller sees it as garbage. */
static inline const char *scan_decimal(const char *s, decnum *d) {
  const char *p = s;
  d->neg = false;
  d->frac = false;
  if (*p == '-') {
    d->neg = true;
    p++;
  } else if (*p == '+') {
    p++;
  }
  bool any = false;
  uint64_t m = 0;
  while (*p == '0') {
    p++;
    any = true;
  }
  const char *ds = p;
  while (is_digit((unsigned char)*p)) m = m * 10 + (uint64_t)(*p++ - '0');
  int64_t nd = p - ds;
  int64_t e = 0;
  if (nd) any = true;
  if (*p == '.') {
    p++;
    d->frac = true;
    const char *fs = p;
    if (nd == 0)
      while (*p == '0') p++; /* 0.000ddd: zeros that are not significant */
    const char *fd = p;
    while (is_digit((unsigned char)*p)) m = m * 10 + (uint64_t)(*p++ - '0');
    nd += p - fd;
    e = -(int64_t)(p - fs);
    if (p > fs) any = true;
  }
  if (!any) return NULL;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    bool eneg = false;
    if (*q == '-') {
      eneg = true;
      q++;
    } else if (*q == '+') {
      q++;
    }
    if (is_digit((unsigned char)*q)) {
      int64_t x = 0;
      /* Clamped far beyond any double exponent but far from int64 overflow;
       * e itself is bounded by the token length. */
      while (is_digit((unsigned char)*q)) {
        if (x < INT64_C(1000000000000000)) x = x * 10 + (*q - '0');
        q++;
      }
      e += eneg ? -x : x;
      p = q;
      d->frac = true;
    }
  }
  d->mant = m;
  d->ndig = nd;
  d->exp10 = e;
  return p;
}

static inline double make_double(bool neg, uint64_t mant52, int64_t power2) {
  uint64_t bits = mant52 | ((uint64_t)power2 << 52) | ((uint64_t)neg << 63);
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* floor(a / 65536) for the int64 range used here, without relying on the
 * implementation-defined right shift of negative numbers. */
static inline int64_t floor_div65536(int64_t a) {
  return a >= 0 ? a / 65536 : -((-a + 65535) / 65536);
}

/* Eisel-Lemire: w * 10^q correctly rounded to a double, w != 0, w < 2^64.
 * Returns 1 with *out set, 2 for an overflow to infinity, 0 when it cannot
 * decide (the caller falls back to strtod). */
static int eisel_lemire(int64_t q, uint64_t w, bool neg, double *out) {
#if defined(__SIZEOF_INT128__) && defined(__GNUC__)
  if (q < POW5_MIN) { /* below half the smallest subnormal: rounds to zero */
    *out = neg ? -0.0 : 0.0;
    return 1;
  }
  if (q > POW5_MAX) return 2;
  int lz = __builtin_clzll(w);
  w <<= lz;
  size_t idx = 2 * (size_t)(q - POW5_MIN);
  unsigned __int128 p1 = (unsigned __int128)w * pow5_128[idx];
  uint64_t hi = (uint64_t)(p1 >> 64), lo = (uint64_t)p1;
  const uint64_t mask = UINT64_C(0xFFFFFFFFFFFFFFFF) >> 55; /* 52 + 3 bits of precision */
  if ((hi & mask) == mask) {
    unsigned __int128 p2 = (unsigned __int128)w * pow5_128[idx + 1];
    uint64_t hi2 = (uint64_t)(p2 >> 64);
    lo += hi2;
    if (hi2 > lo) hi++;
  }
  /* The product may be too inexact to decide the rounding: give up outside
   * the exponents where it is exact (fast_float before its 2023 proof that
   * this never happens; a fallback costs nothing when it does not). */
  if (lo == UINT64_C(0xFFFFFFFFFFFFFFFF) && (q < -27 || q > 55)) return 0;
  int upperbit = (int)(hi >> 63);
  int shift = upperbit + 64 - 52 - 3;
  uint64_t mant = hi >> shift;
  int64_t power2 = floor_div65536((152170 + 65536) * q) + 63 + upperbit - lz + 1023;
  if (power2 <= 0) { /* subnormal or zero */
    if (-power2 + 1 >= 64) {
      *out = neg ? -0.0 : 0.0;
      return 1;
    }
    mant >>= -power2 + 1;
    mant += mant & 1;
    mant >>= 1;
    /* rounding may carry into the smallest normal exponent */
    power2 = mant < (UINT64_C(1) << 52) ? 0 : 1;
    *out = make_double(neg, mant & ~(UINT64_C(1) << 52), power2);
    return 1;
  }
  /* exactly halfway between two doubles: round to even (only possible for
   * small q, where the product is exact) */
  if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1) {
    if ((mant << shift) == hi) mant &= ~UINT64_C(1);
  }
  mant += mant & 1;
  mant >>= 1;
  if (mant >= (UINT64_C(2) << 52)) {
    mant = UINT64_C(1) << 52;
    power2++;
  }
  mant &= ~(UINT64_C(1) << 52);
  if (power2 >= 0x7FF) return 2;
  *out = make_double(neg, mant, power2);
  return 1;
#else
  (void)q, (void)w, (void)neg, (void)out;
  return 0;
#endif
}

/* strtod on the token [s, e), which scan_decimal has validated. Copies it to
 * a NUL-terminated buffer. A locale whose decimal point is not '.' is
 * handled by substituting it. */
static cgm_num_result slow_strtod(const char *s, const char *e, double *out) {
  char small[128];
  size_t n = (size_t)(e - s);
  char *b = n < sizeof small ? small : malloc(n + 1);
  if (!b) return CGM_NUM_NOMEM;
  memcpy(b, s, n);
  b[n] = '\0';
  char *endp;
  double v = strtod(b, &endp);
  if (endp != b + n) {
    const char *dp = localeconv()->decimal_point;
    char *dot = memchr(b, '.', n);
    if (dot && dp && dp[0] && !dp[1]) {
      *dot = dp[0];
      v = strtod(b, &endp);
    }
  }
  bool ok = endp == b + n;
  if (b != small) free(b);
  if (!ok) return CGM_NUM_BAD;
  if (!(v - v == 0.0)) return CGM_NUM_NONFINITE; /* overflow to +-Inf */
  *out = v;
  return CGM_NUM_OK;
}

/* Parses the number starting at s; *endp is where the scan stopped (the
 * caller checks that a token boundary follows). NaN/Inf spellings are
 * recognised to give them their own message. */
static inline cgm_num_result parse_number(const char *s, const char **endp, double *out,
                                          bool *frac) {
  decnum d;
  const char *e = scan_decimal(s, &d);
  if (!e) {
    const char *p = s + (*s == '+' || *s == '-');
    int c0 = lower_ascii((unsigned char)p[0]), c1 = lower_ascii((unsigned char)p[1]),
        c2 = lower_ascii((unsigned char)p[2]);
    *endp = s;
    if ((c0 == 'n' && c1 == 'a' && c2 == 'n') || (c0 == 'i' && c1 == 'n' && c2 == 'f'))
      return CGM_NUM_NONFINITE;
    return CGM_NUM_BAD;
  }
  *endp = e;
  *frac = d.frac;
  if (d.ndig == 0) { /* all digits zero: +-0 whatever the exponent */
    *out = d.neg ? -0.0 : 0.0;
    return CGM_NUM_OK;
  }
  if (d.ndig <= 19) {
#if FLT_EVAL_METHOD == 0
    /* Clinger: mant and 10^|q| are exact doubles, one rounding. */
    if (d.mant <= (UINT64_C(1) << 53) && d.exp10 >= -22 && d.exp10 <= 22) {
      double v = (double)d.mant;
      v = d.exp10 < 0 ? v / exact_pow10[-d.exp10] : v * exact_pow10[d.exp10];
      *out = d.neg ? -v : v;
      return CGM_NUM_OK;
    }
#endif
    int r = eisel_lemire(d.exp10, d.mant, d.neg, out);
    if (r == 1) return CGM_NUM_OK;
    if (r == 2) return CGM_NUM_NONFINITE;
  }
  return slow_strtod(s, e, out);
}

cgm_num_result cgm_mm_parse_double(const char *s, size_t len, double *out) {
  char small[64];
  char *b = len < sizeof small ? small : malloc(len + 1);
  if (!b) return CGM_NUM_NOMEM;
  memcpy(b, s, len);
  b[len] = '\0';
  const char *e;
  bool frac;
  double v = 0.0;
  cgm_num_result r = parse_number(b, &e, &v, &frac);
  if (r == CGM_NUM_OK && e != b + len) r = CGM_NUM_BAD;
  if (r == CGM_NUM_NONFINITE && len > 0) {
    /* only a whole-token nan/inf/infinity counts as one; "info" is bad */
    const char *p = b + (*b == '+' || *b == '-');
    size_t n = len - (size_t)(p - b);
    static const char *const words[] = {"nan", "inf", "infinity"};
    bool word = false, isnum = p != b + len && (is_digit((unsigned char)*p) || *p == '.');
    for (int w = 0; w < 3 && !word; w++) {
      if (strlen(words[w]) != n) continue;
      word = true;
      for (size_t k = 0; k < n; k++)
        if (lower_ascii((unsigned char)p[k]) != words[w][k]) word = false;
    }
    if (!word && !isnum) r = CGM_NUM_BAD;
    if (isnum && e != b + len) r = CGM_NUM_BAD;
  }
  if (b != small) free(b);
  if (r == CGM_NUM_OK) *out = v;
  return r;
}

/* ============================================================ reader === */

#define MM_CHUNK ((size_t)4 << 20)     /* read size */
#define MM_LINE_MAX ((size_t)64 << 20) /* longest line accepted */
/* A file may declare at most max(MM_ROWS_FREE, its size in bytes) rows (a
 * vector that many values): the CSR row pointer (8 bytes a row) or the dense
 * vector then takes at most 8 times the file, as the entries do, and a
 * 40-byte size line cannot make the reader allocate and touch gigabytes. */
#define MM_ROWS_FREE ((int64_t)1 << 16)

typedef struct {
  const char *path;
  cgm_error *err;
  int fd;
  char *buf; /* allocated cap + 1 bytes: room for a sentinel '\n' */
  size_t cap;
  size_t len; /* bytes in buf */
  char *p;    /* parse position */
  char *end;  /* just past the last complete line in buf */
  bool eof;
  int64_t line;  /* number of the line that starts at p */
  int64_t nread; /* bytes read from the file */
  int64_t fsize; /* size of a regular file, -1 otherwise */
  cgm_status st; /* the status of the last error reported */
} mmr;

typedef struct {
  bool array; /* format: array (dense) or coordinate */
  bool complex_field;
  cgm_mm_field field;
  cgm_mm_symmetry sym;
  int64_t rows, cols, entries;
  int64_t size_line;
} mm_header;

typedef struct {
  int32_t *ri, *ci;
  double *v; /* NULL for pattern */
  int64_t n, cap;
} coo;

static cgm_status fail_at(mmr *r, int64_t line, cgm_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static cgm_status fail_at(mmr *r, int64_t line, cgm_status code, const char *fmt, ...) {
  char msg[CGM_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->st = code;
  return cgm_fail(r->err, code, "%s:%lld: %s", r->path, (long long)line, msg);
}

/* Bytes that never occur in a text file. */
static inline bool is_binary_byte(unsigned char c) {
  return c == 0 || c == 0x7f ||
         (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f');
}

/* First binary byte in [s, e), or -1. */
static int find_binary(const char *s, const char *e) {
  for (; s < e; s++)
    if (is_binary_byte((unsigned char)*s)) return (unsigned char)*s;
  return -1;
}

static cgm_status fail_binary(mmr *r, int64_t line, int byte) {
  return fail_at(r, line, CGM_EINPUT, "binary data (byte 0x%02x): not a Matrix Market text file",
                 byte);
}

/* The token at s (up to a blank or the end of the line) for a message:
 * at most 32 characters, unprintable bytes as \xNN. */
static const char *tok_desc(char *dst, size_t dn, const char *s) {
  size_t o = 0;
  int k = 0;
  for (; !is_tok_end((unsigned char)*s) && o + 8 < dn; s++, k++) {
    if (k == 32) {
      memcpy(dst + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c < 0x7f && c != '\'')
      dst[o++] = (char)c;
    else
      o += (size_t)snprintf(dst + o, dn - o, "\\x%02x", c);
  }
  dst[o] = '\0';
  return dst;
}

/* An error on the data line that starts at ls: reported as binary data when
 * the line holds such bytes, else with the message given. */
static cgm_status fail_line(mmr *r, int64_t line, const char *ls, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static cgm_status fail_line(mmr *r, int64_t line, const char *ls, const char *fmt, ...) {
  const char *le = memchr(ls, '\n', (size_t)(r->end - ls));
  int b = find_binary(ls, le ? le : r->end);
  if (b >= 0) return fail_binary(r, line, b);
  char msg[CGM_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fail_at(r, line, CGM_EINPUT, "%s", msg);
}

/* Why a value is NaN/Inf: spelled so, or a number beyond the double range. */
static const char *nonfinite_why(const char *s) {
  s += *s == '+' || *s == '-';
  return is_digit((unsigned char)*s) || *s == '.'
             ? "beyond the double range: only finite values are accepted"
             : "only finite values are accepted";
}

static cgm_status mmr_open(mmr *r, const char *path, cgm_error *err) {
  memset(r, 0, sizeof *r);
  r->path = path ? path : "(null)";
  r->err = err;
  r->fd = -1;
  r->line = 1;
  r->fsize = -1;
  if (!path || !*path) return cgm_fail(err, CGM_EINPUT, "no Matrix Market file name given");
  int fd = open(path, O_RDONLY);
  if (fd < 0) return cgm_fail(err, CGM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return cgm_fail(err, CGM_EINPUT, "%s: cannot open: %s", path, strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return cgm_fail(err, CGM_EINPUT, "%s: cannot read: %s", path, strerror(EISDIR));
  }
  size_t cap = MM_CHUNK;
  if (S_ISREG(st.st_mode)) {
    r->fsize = (int64_t)st.st_size;
    /* small file: one buffer holds it all, and the read after it sees EOF */
    if ((uint64_t)st.st_size < cap) cap = (size_t)st.st_size + 64;
  }
  r->buf = malloc(cap + 1);
  if (!r->buf) {
    close(fd);
    return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for a %zu-byte read buffer", path, cap);
  }
  r->fd = fd;
  r->cap = cap;
  r->p = r->end = r->buf;
  return CGM_OK;
}

static void mmr_close(mmr *r) {
  if (r->fd >= 0) close(r->fd);
  free(r->buf);
  r->fd = -1;
  r->buf = NULL;
}

/* Makes [p, end) hold at least one complete line. Returns 1 when it does, 0
 * at the end of the input, -1 after reporting an error. */
static int mmr_fill(mmr *r) {
  if (r->p < r->end) return 1;
  size_t keep = r->len - (size_t)(r->p - r->buf);
  if (keep && r->p != r->buf) memmove(r->buf, r->p, keep);
  r->len = keep;
  r->p = r->end = r->buf;
  size_t scanned = 0; /* buf[0, scanned) holds no '\n' */
  for (;;) {
    for (size_t k = r->len; k > scanned; k--) {
      if (r->buf[k - 1] == '\n') {
        r->end = r->buf + k;
        return 1;
      }
    }
    scanned = r->len;
    if (r->eof) {
      if (r->len == 0) return 0;
      r->buf[r->len++] = '\n'; /* last line without a newline: the +1 byte */
      r->end = r->buf + r->len;
      return 1;
    }
    if (r->len == r->cap) { /* a line longer than the buffer */
      int b = find_binary(r->buf, r->buf + r->len);
      if (b >= 0) {
        fail_binary(r, r->line, b);
        return -1;
      }
      if (r->cap >= MM_LINE_MAX) {
        fail_at(r, r->line, CGM_EINPUT, "line longer than %zu MiB: not a Matrix Market file",
                MM_LINE_MAX >> 20);
        return -1;
      }
      size_t ncap = 2 * r->cap;
      char *nb = realloc(r->buf, ncap + 1);
      if (!nb) {
        fail_at(r, r->line, CGM_ERUNTIME, "out of memory for a %zu-byte line buffer", ncap);
        return -1;
      }
      r->buf = nb;
      r->cap = ncap;
      r->p = r->end = r->buf;
    }
    ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (k < 0) {
      if (errno == EINTR) continue;
      fail_at(r, r->line, errno == EISDIR ? CGM_EINPUT : CGM_ERUNTIME, "read error: %s",
              strerror(errno));
      return -1;
    }
    if (k == 0) {
      r->eof = true;
      continue;
    }
    r->len += (size_t)k;
    r->nread += k;
  }
}

/* The next line as [*ls, *le), *le at its '\n'; *lineno its number.
 * Returns 1, 0 at the end of the input, -1 after an error. */
static int next_line(mmr *r, char **ls, char **le, int64_t *lineno) {
  int f = mmr_fill(r);
  if (f <= 0) return f;
  *ls = r->p;
  *le = memchr(r->p, '\n', (size_t)(r->end - r->p));
  *lineno = r->line++;
  r->p = *le + 1;
  return 1;
}

/* After the L declared entries (values) only blank lines and comments may
 * follow; the first other line is an error naming it (with its first token
 * when show_token). */
static cgm_status expect_end(mmr *r, const char *what, int64_t L, int64_t size_line,
                             bool show_token) {
  for (;;) {
    char *ls, *le;
    int64_t ln;
    int f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0) return CGM_OK;
    int b = find_binary(ls, le);
    if (b >= 0) return fail_binary(r, ln, b);
    const char *q = ls;
    while (q < le && is_blank((unsigned char)*q)) q++;
    if (q == le || *q == '%') continue;
    char tb[96];
    if (!show_token)
      return fail_at(r, ln, CGM_EINPUT, "more %s than the %lld declared on line %lld", what,
                     (long long)L, (long long)size_line);
    return fail_at(r, ln, CGM_EINPUT, "more %s than the %lld declared on line %lld (found '%s')",
                   what, (long long)L, (long long)size_line, tok_desc(tb, sizeof tb, q));
  }
}

/* Next blank-separated token in [*pp, le); false when none is left. */
static bool next_tok(const char **pp, const char *le, const char **ts, size_t *tl) {
  const char *p = *pp;
  while (p < le && is_blank((unsigned char)*p)) p++;
  if (p >= le) {
    *pp = p;
    return false;
  }
  const char *s = p;
  while (p < le && !is_blank((unsigned char)*p)) p++;
  *ts = s;
  *tl = (size_t)(p - s);
  *pp = p;
  return true;
}

static bool kw_eq(const char *s, size_t n, const char *kw) {
  if (strlen(kw) != n) return false;
  for (size_t k = 0; k < n; k++)
    if (lower_ascii((unsigned char)s[k]) != kw[k]) return false;
  return true;
}

/* A token copied for a message (at most 40 characters, unprintables as
 * \xNN). */
static const char *tok_copy(char *dst, size_t dn, const char *s, size_t n) {
  size_t o = 0;
  for (size_t k = 0; k < n && o + 8 < dn; k++) {
    if (k == 40) {
      memcpy(dst + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)s[k];
    if (c >= 0x20 && c < 0x7f && c != '\'')
      dst[o++] = (char)c;
    else
      o += (size_t)snprintf(dst + o, dn - o, "\\x%02x", c);
  }
  dst[o] = '\0';
  return dst;
}

/* Size-line number: [+]digits, at most 18 digits (int64 without overflow).
 * 0 ok, 1 not a number, 2 negative, 3 too large. */
static int parse_size_int(const char *s, size_t n, int64_t *out) {
  size_t k = 0;
  bool neg = false;
  if (k < n && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
  if (k == n) return 1;
  while (k + 1 < n && s[k] == '0') k++;
  if (n - k > 18) {
    for (size_t m = k; m < n; m++)
      if (!is_digit((unsigned char)s[m])) return 1;
    return neg ? 2 : 3;
  }
  int64_t v = 0;
  for (; k < n; k++) {
    if (!is_digit((unsigned char)s[k])) return 1;
    v = v * 10 + (s[k] - '0');
  }
  if (neg && v > 0) return 2;
  *out = v;
  return 0;
}

static const char *field_name(const mm_header *h) {
  if (h->complex_field) return "complex";
  switch (h->field) {
  case CGM_MM_REAL:
    return "real";
  case CGM_MM_INTEGER:
    return "integer";
  case CGM_MM_PATTERN:
    return "pattern";
  }
  return "?";
}

/* The row-count bound of MM_ROWS_FREE for a file of `bytes` bytes. */
static cgm_status check_rows(mmr *r, const mm_header *h, bool vector, int64_t bytes) {
  if (h->rows <= MM_ROWS_FREE || h->rows <= bytes) return CGM_OK;
  if (vector)
    return fail_at(r, h->size_line, CGM_EINPUT,
                   "a vector of %lld values is too long for a file of %lld bytes: at most %lld "
                   "(or one per byte of the file), as it would take %lld bytes",
                   (long long)h->rows, (long long)bytes, (long long)MM_ROWS_FREE,
                   (long long)h->rows * 8);
  return fail_at(r, h->size_line, CGM_EINPUT,
                 "matrix %lld x %lld has too many rows for a file of %lld bytes: at most %lld (or "
                 "one per byte of the file), as the row pointer alone would take %lld bytes",
                 (long long)h->rows, (long long)h->cols, (long long)bytes, (long long)MM_ROWS_FREE,
                 (long long)(h->rows + 1) * 8);
}

/* Banner, comments, size line. want_vector: the caller reads a vector
 * (array allowed, one column required). */
static cgm_status read_header(mmr *r, mm_header *h, bool want_vector) {
  memset(h, 0, sizeof *h);
  char *ls = NULL, *le = NULL;
  int64_t ln = 1;
  int f = mmr_fill(r);
  if (f < 0) return r->st;
  if (f == 0) return fail_at(r, 1, CGM_EINPUT, "empty file: expected a %%%%MatrixMarket banner");

  /* compressed files, recognised by their magic number */
  const unsigned char *u = (const unsigned char *)r->buf;
  size_t n = r->len;
  const char *comp = NULL;
  if (n >= 2 && u[0] == 0x1f && u[1] == 0x8b)
    comp = "gzip";
  else if (n >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd)
    comp = "zstd";
  else if (n >= 6 && memcmp(u,
                            "\xfd"
                            "7zXZ\0",
                            6) == 0)
    comp = "xz";
  else if (n >= 4 && memcmp(u, "BZh", 3) == 0 && u[3] >= '1' && u[3] <= '9')
    comp = "bzip2";
  else if (n >= 4 && memcmp(u, "PK\x03\x04", 4) == 0)
    comp = "zip";
  if (comp) return fail_at(r, 1, CGM_EINPUT, "compressed file (%s): decompress it first", comp);

  f = next_line(r, &ls, &le, &ln);
  if (f <= 0) return f < 0 ? r->st : fail_at(r, 1, CGM_EINPUT, "empty file");
  if (le - ls >= 3 && memcmp(ls, "\xef\xbb\xbf", 3) == 0) ls += 3; /* UTF-8 byte order mark */
  int b = find_binary(ls, le);
  if (b >= 0) return fail_binary(r, ln, b);

  const char *p = ls, *t[5];
  size_t tl[5];
  int nt = 0;
  char tb[64];
  while (nt < 5 && next_tok(&p, le, &t[nt], &tl[nt])) nt++;
  if (nt == 0 || !kw_eq(t[0], tl[0], "%%matrixmarket"))
    return fail_at(r, ln, CGM_EINPUT,
                   "missing Matrix Market banner: the first line must start with %%%%MatrixMarket "
                   "(found '%s')",
                   nt ? tok_copy(tb, sizeof tb, t[0], tl[0]) : "");
  if (nt < 5)
    return fail_at(r, ln, CGM_EINPUT,
                   "incomplete banner: expected '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY' "
                   "(%d of 4 keywords)",
                   nt - 1);
  const char *xt;
  size_t xl;
  if (next_tok(&p, le, &xt, &xl))
    return fail_at(r, ln, CGM_EINPUT, "extra token '%s' after the banner keywords",
                   tok_copy(tb, sizeof tb, xt, xl));
  if (!kw_eq(t[1], tl[1], "matrix"))
    return fail_at(r, ln, CGM_EINPUT, "unsupported object '%s': only 'matrix' is supported",
                   tok_copy(tb, sizeof tb, t[1], tl[1]));
  if (kw_eq(t[2], tl[2], "coordinate"))
    h->array = false;
  else if (kw_eq(t[2], tl[2], "array"))
    h->array = true;
  else
    return fail_at(r, ln, CGM_EINPUT, "unknown format '%s' (expected coordinate or array)",
                   tok_copy(tb, sizeof tb, t[2], tl[2]));
  if (kw_eq(t[3], tl[3], "real"))
    h->field = CGM_MM_REAL;
  else if (kw_eq(t[3], tl[3], "integer"))
    h->field = CGM_MM_INTEGER;
  else if (kw_eq(t[3], tl[3], "pattern"))
    h->field = CGM_MM_PATTERN;
  else if (kw_eq(t[3], tl[3], "complex"))
    h->complex_field = true;
  else
    return fail_at(r, ln, CGM_EINPUT,
                   "unknown field '%s' (expected real, integer, pattern or complex)",
                   tok_copy(tb, sizeof tb, t[3], tl[3]));
  bool skew = false, herm = false;
  if (kw_eq(t[4], tl[4], "general"))
    h->sym = CGM_MM_GENERAL;
  else if (kw_eq(t[4], tl[4], "symmetric"))
    h->sym = CGM_MM_SYMMETRIC;
  else if (kw_eq(t[4], tl[4], "skew-symmetric"))
    skew = true;
  else if (kw_eq(t[4], tl[4], "hermitian"))
    herm = true;
  else
    return fail_at(r, ln, CGM_EINPUT,
                   "unknown symmetry '%s' (expected general, symmetric, skew-symmetric or "
                   "hermitian)",
                   tok_copy(tb, sizeof tb, t[4], tl[4]));
  if (h->complex_field)
    return fail_at(r, ln, CGM_EINPUT,
                   "complex matrices are not supported: CG needs a real SPD matrix");
  if (herm)
    return fail_at(r, ln, CGM_EINPUT,
                   "hermitian matrices are not supported (hermitian is for complex matrices): CG "
                   "needs a real SPD matrix; a real symmetric matrix is 'symmetric'");
  if (skew)
    return fail_at(r, ln, CGM_EINPUT,
                   "skew-symmetric matrices are not supported: CG needs a real SPD matrix");
  if (h->array && h->field == CGM_MM_PATTERN)
    return fail_at(r, ln, CGM_EINPUT,
                   "'array pattern' is not valid Matrix Market: pattern "
                   "needs the coordinate format");
  if (h->array && !want_vector)
    return fail_at(r, ln, CGM_EINPUT,
                   "dense 'array' format is not supported for matrices: use the coordinate format");
  if (want_vector && h->sym != CGM_MM_GENERAL)
    return fail_at(r, ln, CGM_EINPUT, "a vector must be 'general', not 'symmetric'");

  /* comments and blank lines, then the size line */
  for (;;) {
    f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0)
      return fail_at(r, r->line, CGM_EINPUT, "missing size line: expected '%s' after the banner",
                     h->array ? "ROWS COLS" : "ROWS COLS ENTRIES");
    b = find_binary(ls, le);
    if (b >= 0) return fail_binary(r, ln, b);
    p = ls;
    while (p < le && is_blank((unsigned char)*p)) p++;
    if (p == le || *p == '%') continue;
    break;
  }
  h->size_line = ln;
  int want = h->array ? 2 : 3;
  const char *st[3];
  size_t sl[3];
  int64_t sv[3] = {0, 0, 0};
  const char *names[3] = {"row count", "column count", "entry count"};
  const char *shape = h->array ? "ROWS COLS" : "ROWS COLS ENTRIES";
  p = ls;
  for (int k = 0; k < want; k++) {
    if (!next_tok(&p, le, &st[k], &sl[k]))
      return fail_at(r, ln, CGM_EINPUT, "bad size line: expected '%s', found %d number%s", shape, k,
                     k == 1 ? "" : "s");
    int e = parse_size_int(st[k], sl[k], &sv[k]);
    if (e == 1)
      return fail_at(r, ln, CGM_EINPUT, "bad size line: %s '%s' is not a number (expected '%s')",
                     names[k], tok_copy(tb, sizeof tb, st[k], sl[k]), shape);
    if (e == 2)
      return fail_at(r, ln, CGM_EINPUT, "bad size line: negative %s %s", names[k],
                     tok_copy(tb, sizeof tb, st[k], sl[k]));
    if (e == 3)
      return fail_at(r, ln, CGM_EINPUT, "bad size line: %s %s is too large", names[k],
                     tok_copy(tb, sizeof tb, st[k], sl[k]));
  }
  if (next_tok(&p, le, &xt, &xl))
    return fail_at(r, ln, CGM_EINPUT, "bad size line: extra token '%s' (expected '%s')",
                   tok_copy(tb, sizeof tb, xt, xl), shape);
  h->rows = sv[0];
  h->cols = sv[1];
  h->entries = h->array ? 0 : sv[2]; /* an array's rows x cols once both are < 2^31 (below) */
  if (h->rows == 0 || h->cols == 0)
    return fail_at(r, ln, CGM_EINPUT, "empty matrix: %lld rows, %lld columns", (long long)h->rows,
                   (long long)h->cols);
  if (h->rows > INT32_MAX || h->cols > INT32_MAX)
    return fail_at(r, ln, CGM_EINPUT,
                   "matrix %lld x %lld is too large: rows and columns must be at most %d (int32 "
                   "indices)",
                   (long long)h->rows, (long long)h->cols, INT32_MAX);
  if (h->array) h->entries = h->rows * h->cols; /* < 2^62: no overflow */
  if (h->sym == CGM_MM_SYMMETRIC && h->rows != h->cols)
    return fail_at(r, ln, CGM_EINPUT, "symmetric matrix must be square, not %lld x %lld",
                   (long long)h->rows, (long long)h->cols);
  if (want_vector && h->cols != 1)
    return fail_at(r, ln, CGM_EINPUT,
                   "a vector must have one column (n x 1); this one is %lld x %lld",
                   (long long)h->rows, (long long)h->cols);
  /* Never trust the count for an allocation: every entry needs a line of at
   * least "i j\n" (4 bytes), "i j v\n" (6) or, in an array, "v\n" (2). */
  if (r->fsize >= 0) {
    int64_t minline = h->array ? 2 : h->field == CGM_MM_PATTERN ? 4 : 6;
    int64_t fit = (r->fsize + 1) / minline;
    if (h->entries > fit)
      return fail_at(r, ln, CGM_EINPUT,
                     "the size line declares %lld entries, but a file of %lld bytes can hold at "
                     "most %lld (truncated file?)",
                     (long long)h->entries, (long long)r->fsize, (long long)fit);
    /* a pipe is checked once its size is known, after the entries */
    return check_rows(r, h, want_vector, r->fsize);
  }
  return CGM_OK;
}

static void coo_free(coo *c) {
  free(c->ri);
  free(c->ci);
  free(c->v);
  memset(c, 0, sizeof *c);
}

static bool coo_reserve(coo *c, int64_t cap, bool values) {
  if (cap <= c->cap) return true;
  if ((uint64_t)cap > SIZE_MAX / sizeof(double)) return false;
  size_t n = (size_t)(cap > 0 ? cap : 1);
  int32_t *ri = realloc(c->ri, n * sizeof *ri);
  if (ri) c->ri = ri;
  int32_t *ci = realloc(c->ci, n * sizeof *ci);
  if (ci) c->ci = ci;
  double *v = values ? realloc(c->v, n * sizeof *v) : NULL;
  if (v) c->v = v;
  if (!ri || !ci || (values && !v)) return false;
  c->cap = cap;
  return true;
}

/* Reads the entry lines of a coordinate file into c (1-based indices made
 * 0-based, range-checked), then checks that only blank lines or comments
 * follow. *ndiag counts the diagonal entries. */
static cgm_status read_coordinate(mmr *r, const mm_header *h, coo *c, int64_t *ndiag) {
  const bool values = h->field != CGM_MM_PATTERN;
  const bool integer = h->field == CGM_MM_INTEGER;
  const bool sym = h->sym == CGM_MM_SYMMETRIC;
  const uint64_t M = (uint64_t)h->rows, N = (uint64_t)h->cols;
  const int64_t L = h->entries;
  int64_t cap0 = r->fsize >= 0 ? L : (L < (1 << 16) ? L : (1 << 16));
  if (!coo_reserve(c, cap0, values))
    return fail_at(r, h->size_line, CGM_ERUNTIME, "out of memory for %lld entries",
                   (long long)cap0);
  char tb[96];
  int64_t nd = 0;
  /* symmetric: the first off-diagonal entry of each triangle, to report a
   * file that holds both */
  int64_t lo_line = 0, up_line = 0;
  uint64_t lo_i = 0, lo_j = 0, up_i = 0, up_j = 0;

  char *p = r->p, *end = r->end;
  int64_t line = r->line;
  int64_t k = 0;
  int32_t *ri = c->ri, *ci = c->ci;
  double *vv = c->v;
  while (k < L) {
    if (p >= end) {
      r->p = p;
      r->line = line;
      int f = mmr_fill(r);
      if (f < 0) return r->st;
      if (f == 0)
        return fail_at(r, line, CGM_EINPUT,
                       "unexpected end of file after %lld of the %lld entries declared on line "
                       "%lld (truncated file?)",
                       (long long)k, (long long)L, (long long)h->size_line);
      p = r->p;
      end = r->end;
    }
    char *ls = p;
    while (*p == ' ' || *p == '\t') p++;
    if (!is_digit((unsigned char)*p)) {
      if (*p == '\n' || *p == '%' || is_blank((unsigned char)*p)) {
        char *le = memchr(p, '\n', (size_t)(end - p));
        int b = find_binary(p, le);
        if (b >= 0) return fail_binary(r, line, b);
        const char *q = p;
        while (q < le && is_blank((unsigned char)*q)) q++;
        if (q < le && *q != '%')
          return fail_line(r, line, ls, "bad row index '%s' (expected an integer in 1..%llu)",
                           tok_desc(tb, sizeof tb, q), (unsigned long long)M);
        p = le + 1;
        line++;
        continue;
      }
      return fail_line(r, line, ls, "bad row index '%s' (expected an integer in 1..%llu)",
                       tok_desc(tb, sizeof tb, p), (unsigned long long)M);
    }
    /* row index */
    const char *ts = p;
    uint64_t i = 0;
    while (is_digit((unsigned char)*p)) i = i * 10 + (uint64_t)(*p++ - '0');
    if (p - ts > 19) i = UINT64_MAX;
    if (*p != ' ' && *p != '\t') {
      if (*p == '\n' || is_blank((unsigned char)*p))
        return fail_line(r, line, ls, "missing column index (expected '%s')",
                         values ? "ROW COL VALUE" : "ROW COL");
      return fail_line(r, line, ls, "bad row index '%s' (expected an integer in 1..%llu)",
                       tok_desc(tb, sizeof tb, ts), (unsigned long long)M);
    }
    while (*p == ' ' || *p == '\t') p++;
    /* column index */
    ts = p;
    uint64_t j = 0;
    while (is_digit((unsigned char)*p)) j = j * 10 + (uint64_t)(*p++ - '0');
    if (p - ts > 19) j = UINT64_MAX;
    if (p == ts || !is_tok_end((unsigned char)*p) || *p == '\0') {
      if (*p == '\n' || is_blank((unsigned char)*p))
        return fail_line(r, line, ls, "missing column index (expected '%s')",
                         values ? "ROW COL VALUE" : "ROW COL");
      return fail_line(r, line, ls, "bad column index '%s' (expected an integer in 1..%llu)",
                       tok_desc(tb, sizeof tb, ts), (unsigned long long)N);
    }
    if (i - 1 >= M)
      return fail_line(r, line, ls, "row index %s out of range 1..%llu",
                       tok_desc(tb, sizeof tb, ls + strspn(ls, " \t")), (unsigned long long)M);
    if (j - 1 >= N)
      return fail_line(r, line, ls, "column index %s out of range 1..%llu",
                       tok_desc(tb, sizeof tb, ts), (unsigned long long)N);
    /* value */
    double v = 1.0;
    if (values) {
      while (*p == ' ' || *p == '\t') p++;
      if (*p == '\n' || is_blank((unsigned char)*p))
        return fail_line(r, line, ls, "missing value (expected 'ROW COL VALUE' in a %s matrix)",
                         field_name(h));
      const char *vs = p, *ve;
      bool frac = false;
      cgm_num_result nr = parse_number(vs, &ve, &v, &frac);
      if (nr == CGM_NUM_OK && !is_tok_end((unsigned char)*ve)) nr = CGM_NUM_BAD;
      if (nr == CGM_NUM_OK && *ve == '\0') nr = CGM_NUM_BAD;
      if (nr != CGM_NUM_OK) {
        if (nr == CGM_NUM_NOMEM)
          return fail_at(r, line, CGM_ERUNTIME, "out of memory parsing a value");
        if (nr == CGM_NUM_NONFINITE)
          return fail_line(r, line, ls, "NaN/Inf value '%s' (%s)", tok_desc(tb, sizeof tb, vs),
                           nonfinite_why(vs));
        return fail_line(r, line, ls, "bad value '%s': not a number", tok_desc(tb, sizeof tb, vs));
      }
      if (integer && frac)
        return fail_line(r, line, ls, "non-integer value '%s' in an integer matrix",
                         tok_desc(tb, sizeof tb, vs));
      p = (char *)ve;
    }
    while (is_blank((unsigned char)*p)) p++;
    if (*p != '\n') {
      if (!values)
        return fail_line(r, line, ls, "value '%s' present in a pattern matrix (expected 'ROW COL')",
                         tok_desc(tb, sizeof tb, p));
      return fail_line(r, line, ls, "extra token '%s' after the entry (expected 'ROW COL VALUE')",
                       tok_desc(tb, sizeof tb, p));
    }
    p++;
    if (i == j) {
      nd++;
    } else if (sym) {
      if (i > j) {
        if (!lo_line) lo_line = line, lo_i = i, lo_j = j;
        if (up_line)
          return fail_at(r, line, CGM_EINPUT,
                         "symmetric file has entries in both triangles: (%llu,%llu) is below the "
                         "diagonal, but line %lld has (%llu,%llu) above it; a symmetric file "
                         "stores one triangle only (both would be counted twice)",
                         (unsigned long long)i, (unsigned long long)j, (long long)up_line,
                         (unsigned long long)up_i, (unsigned long long)up_j);
      } else {
        if (!up_line) up_line = line, up_i = i, up_j = j;
        if (lo_line)
          return fail_at(r, line, CGM_EINPUT,
                         "symmetric file has entries in both triangles: (%llu,%llu) is above the "
                         "diagonal, but line %lld has (%llu,%llu) below it; a symmetric file "
                         "stores one triangle only (both would be counted twice)",
                         (unsigned long long)i, (unsigned long long)j, (long long)lo_line,
                         (unsigned long long)lo_i, (unsigned long long)lo_j);
      }
    }
    line++;
    if (k == c->cap) { /* size unknown (a pipe): grow */
      int64_t ncap = c->cap < L / 2 ? 2 * c->cap : L;
      if (ncap < 16) ncap = 16 < L ? 16 : L;
      if (!coo_reserve(c, ncap, values))
        return fail_at(r, line - 1, CGM_ERUNTIME, "out of memory for %lld entries",
                       (long long)ncap);
      ri = c->ri;
      ci = c->ci;
      vv = c->v;
    }
    ri[k] = (int32_t)(i - 1);
    ci[k] = (int32_t)(j - 1);
    if (values) vv[k] = v;
    k++;
  }
  c->n = k;
  *ndiag = nd;
  r->p = p;
  r->line = line;

  /* only blank lines and comments may follow */
  return expect_end(r, "entries", L, h->size_line, true);
}

cgm_status cgm_mm_read_csr(const char *path, cgm_csr *A, cgm_mm_info *info, cgm_error *err) {
  if (A) memset(A, 0, sizeof *A);
  if (info) memset(info, 0, sizeof *info);
  if (!A) return cgm_fail(err, CGM_EINPUT, "cgm_mm_read_csr: no output matrix");
  mmr r;
  cgm_status st = mmr_open(&r, path, err);
  if (st) return st;
  mm_header h;
  coo c = {0};
  int64_t ndiag = 0, ndup = 0;
  st = read_header(&r, &h, false);
  if (!st && info) {
    info->field = h.field;
    info->symmetry = h.sym;
    info->entries_in_file = h.entries;
  }
  if (!st) st = read_coordinate(&r, &h, &c, &ndiag);
  if (!st && r.fsize < 0) st = check_rows(&r, &h, false, r.nread);
  if (!st && h.sym == CGM_MM_SYMMETRIC) {
    /* expand: the mirror of every off-diagonal entry */
    int64_t off = c.n - ndiag, n = c.n;
    if (!coo_reserve(&c, n + off, h.field != CGM_MM_PATTERN)) {
      st = cgm_fail(err, CGM_ERUNTIME, "%s: out of memory expanding %lld symmetric entries", path,
                    (long long)n);
    } else {
      int64_t o = n;
      for (int64_t k = 0; k < n; k++) {
        if (c.ri[k] == c.ci[k]) continue;
        c.ri[o] = c.ci[k];
        c.ci[o] = c.ri[k];
        if (c.v) c.v[o] = c.v[k];
        o++;
      }
      c.n = o;
    }
  }
  if (!st) {
    st = cgm_csr_from_coo((int32_t)h.rows, (int32_t)h.cols, c.n, c.ri, c.ci, c.v, A, &ndup, err);
    if (st) cgm_error_prefix(err, "%s: ", path);
  }
  /* Finite values can sum to +-Inf ("1 1 1e308" twice): refused like an Inf
   * in the file (fuzz_mm's finiteness check; docs/reliability.md). */
  if (!st && ndup > 0)
    for (int32_t i = 0; i < A->nrows && !st; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (!isfinite(A->val[k])) {
          st = cgm_fail(err, CGM_EINPUT,
                        "%s: duplicate entries of (%d,%d) sum to %s, beyond the double range: "
                        "only finite values are accepted",
                        path, i + 1, A->colidx[k] + 1, A->val[k] > 0 ? "+Inf" : "-Inf");
          break;
        }
  coo_free(&c);
  if (!st && info) {
    if (h.sym == CGM_MM_SYMMETRIC) {
      /* report duplicates as lines of the file, not as expanded entries:
       * distinct diagonal d, distinct off-diagonal pairs o = (nnz - d) / 2 */
      int64_t d = 0;
      for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
          if (A->colidx[k] == i) {
            d++;
            break;
          }
      ndup = h.entries - d - (A->nnz - d) / 2;
    }
    info->duplicates_summed = ndup;
  }
  if (info) info->file_bytes = r.nread;
  mmr_close(&r);
  if (st) cgm_csr_free(A);
  return st;
}

/* Array values, one per line, column-major (one column here), into *vp
 * (malloc'ed here: h->entries values for a regular file, whose size bounds
 * them; grown as values arrive from a pipe). */
static cgm_status read_array(mmr *r, const mm_header *h, double **vp) {
  char tb[96];
  const int64_t L = h->entries;
  int64_t cap = r->fsize >= 0 || L < (1 << 16) ? L : (1 << 16);
  double *v = malloc((size_t)cap * sizeof *v);
  if (!v)
    return fail_at(r, h->size_line, CGM_ERUNTIME, "out of memory for %lld values", (long long)cap);
  *vp = v;
  int64_t k = 0;
  while (k < L) {
    char *ls, *le;
    int64_t ln;
    int f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0)
      return fail_at(r, r->line, CGM_EINPUT,
                     "unexpected end of file after %lld of the %lld values declared on "
                     "line %lld (truncated file?)",
                     (long long)k, (long long)L, (long long)h->size_line);
    const char *p = ls;
    while (p < le && is_blank((unsigned char)*p)) p++;
    if (p == le || *p == '%') {
      int b = find_binary(ls, le);
      if (b >= 0) return fail_binary(r, ln, b);
      continue;
    }
    const char *ve;
    bool frac = false;
    double x = 0.0;
    cgm_num_result nr = parse_number(p, &ve, &x, &frac);
    if (nr == CGM_NUM_OK && (!is_tok_end((unsigned char)*ve) || *ve == '\0')) nr = CGM_NUM_BAD;
    if (nr == CGM_NUM_NOMEM) return fail_at(r, ln, CGM_ERUNTIME, "out of memory parsing a value");
    if (nr == CGM_NUM_NONFINITE)
      return fail_line(r, ln, ls, "NaN/Inf value '%s' (%s)", tok_desc(tb, sizeof tb, p),
                       nonfinite_why(p));
    if (nr != CGM_NUM_OK)
      return fail_line(r, ln, ls, "bad value '%s': not a number", tok_desc(tb, sizeof tb, p));
    if (h->field == CGM_MM_INTEGER && frac)
      return fail_line(r, ln, ls, "non-integer value '%s' in an integer matrix",
                       tok_desc(tb, sizeof tb, p));
    while (is_blank((unsigned char)*ve)) ve++;
    if (*ve != '\n')
      return fail_line(r, ln, ls, "extra token '%s' (an array file has one value per line)",
                       tok_desc(tb, sizeof tb, ve));
    if (k == cap) { /* size unknown (a pipe): grow */
      int64_t ncap = cap < L / 2 ? 2 * cap : L;
      double *nv = realloc(v, (size_t)ncap * sizeof *v);
      if (!nv)
        return fail_at(r, ln, CGM_ERUNTIME, "out of memory for %lld values", (long long)ncap);
      *vp = v = nv;
      cap = ncap;
    }
    v[k++] = x;
  }
  return expect_end(r, "values", L, h->size_line, false);
}

cgm_status cgm_mm_read_vector(const char *path, double **v, int32_t *n, cgm_error *err) {
  if (v) *v = NULL;
  if (n) *n = 0;
  if (!v || !n) return cgm_fail(err, CGM_EINPUT, "cgm_mm_read_vector: no output vector");
  mmr r;
  cgm_status st = mmr_open(&r, path, err);
  if (st) return st;
  mm_header h;
  double *x = NULL;
  st = read_header(&r, &h, true);
  if (!st && h.array) {
    st = read_array(&r, &h, &x);
  } else if (!st) {
    coo c = {0};
    int64_t nd = 0;
    st = read_coordinate(&r, &h, &c, &nd);
    if (!st && r.fsize < 0) st = check_rows(&r, &h, true, r.nread);
    if (!st) {
      x = calloc((size_t)h.rows, sizeof *x);
      if (!x)
        st = cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for a vector of %lld values", path,
                      (long long)h.rows);
    }
    if (!st)
      for (int64_t k = 0; k < c.n; k++) x[c.ri[k]] += c.v ? c.v[k] : 1.0;
    for (int64_t i = 0; !st && i < h.rows; i++)
      if (!isfinite(x[i]))
        st = cgm_fail(err, CGM_EINPUT,
                      "%s: duplicate entries of row %lld sum to %s, beyond the double range: only "
                      "finite values are accepted",
                      path, (long long)i + 1, x[i] > 0 ? "+Inf" : "-Inf");
    coo_free(&c);
  }
  mmr_close(&r);
  if (st) {
    free(x);
    return st;
  }
  *v = x;
  *n = (int32_t)h.rows;
  return CGM_OK;
}

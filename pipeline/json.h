/* JSON forms of the library's records (cJSON), shared by the CLI's --json
 * output and the database's stored features. */
#ifndef CGM_PIPELINE_JSON_H
#define CGM_PIPELINE_JSON_H

#include <cjson/cJSON.h>

#include "cgmodel/cgmodel.h"

/* mm may be NULL. */
cJSON *cgm_features_json(const cgm_features *f, const cgm_mm_info *mm);

#endif
